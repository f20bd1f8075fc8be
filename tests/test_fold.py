"""The run folded case by case: what its end says does not depend on the order cases arrive in."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pytest_chunkrecall.baseline.case_outcome import case_outcome
from pytest_chunkrecall.baseline.decision import GateOutcome, gate_run
from pytest_chunkrecall.baseline.policy import GateSettings
from pytest_chunkrecall.baseline.saved import Baseline, Entry
from pytest_chunkrecall.evaluation.results import VERDICTS, CaseResult, Totals
from pytest_chunkrecall.render import json_report
from pytest_chunkrecall.render.summary import SummaryContext, summarise
from pytest_chunkrecall.render.terminal_summary import SLOW_LISTING, STYLES, summary_lines
from pytest_chunkrecall.run import entry
from pytest_chunkrecall.run.entry import CaseEntry
from pytest_chunkrecall.run.fold import RunFold
from pytest_chunkrecall.run.spool import Spool


def result(gold_file: str, line: int, verdict: str, *, split: bool = False) -> CaseResult:
    return CaseResult(
        gold_file=gold_file,
        id=f"c{line}",
        line=line,
        question=f"question {line}?",
        needles=["30 days"],
        span=None,
        verdict=verdict,  # type: ignore[arg-type]
        rank=1 + line % 3 if verdict == "hit" else None,
        span_split=split,
        k=3,
        match="normalized",
        needle_lengths=[7],
        span_length=7 + line,
        unit="chars",
        pieces_retrieved=True if split else None,
    )


def evaluated(found: CaseResult, outcome: str | None = None) -> CaseEntry:
    if outcome is None:
        outcome = "passed" if found.hit else "failed"
    return entry.evaluated(
        f"{found.gold_file}::{found.id}",
        found,
        xfail=None,
        outcome=outcome,  # type: ignore[arg-type]
    )


CASES = st.lists(
    st.tuples(
        st.sampled_from(["gold/a.yaml", "gold/b.yaml"]),
        st.integers(min_value=1, max_value=60),
        st.sampled_from(VERDICTS),
        st.booleans(),
    ),
    max_size=25,
    unique_by=lambda case: case[:2],
)
BASELINE = Baseline(
    {
        "gold/a.yaml": {f"c{n}": Entry("hit" if n % 2 else "split", 1, False) for n in range(60)},
    }
)


def report_of(entries: list[CaseEntry]) -> str:
    fold, spool = RunFold(baseline=BASELINE), Spool()
    for found in entries:
        fold.add(found)
        spool.add(found["nodeid"], entry.order_key(found), entry.dumps(found))
    summary = fold.finish(existing={})
    outcome = gate_run(
        GateSettings(),
        summary.totals,
        comparison=summary.comparison,
        baseline=BASELINE,
        name="b.json",
        gold_files=summary.evaluated_files,
        setups=summary.setups(),
        documents=summary.fingerprints(),
    )
    head = json_report.head(summary, outcome, baseline_name="b.json")
    text = "".join(json_report.text(head, spool.texts()))
    spool.close()
    return text + "\n".join(
        line.text for line in summary_lines(summarise(summary, outcome, SummaryContext()))
    )


@given(CASES, st.randoms(use_true_random=False))
def test_the_report_and_summary_are_the_same_whatever_order_the_cases_arrive_in(cases, random):
    entries = [
        evaluated(result(path, line, verdict, split=split)) for path, line, verdict, split in cases
    ]
    shuffled = list(entries)
    random.shuffle(shuffled)
    assert report_of(shuffled) == report_of(entries)


@given(CASES)
def test_the_totals_are_those_of_the_results_in_gold_file_order(cases):
    results = [result(path, line, verdict, split=split) for path, line, verdict, split in cases]
    fold = RunFold()
    for found in results:
        fold.add(evaluated(found))
    summary = fold.finish()
    ordered = sorted(results, key=lambda r: (r.gold_file, r.line))
    assert summary.totals == Totals.of(ordered)
    for gold in summary.gold_files:
        assert gold.totals == Totals.of(r for r in ordered if r.gold_file == gold.path)


def test_a_case_reported_twice_is_counted_once() -> None:
    fold = RunFold()
    found = evaluated(result("gold/a.yaml", 3, "hit"))
    fold.add(found)
    fold.add(found)
    assert fold.finish().totals.cases == 1


def test_the_spool_gives_back_each_case_once_in_report_order_and_its_last_text() -> None:
    spool = Spool()
    spool.add("gold/b.yaml::c1", ("gold/b.yaml", 1, "c1"), '{"n":1}')
    spool.add("gold/a.yaml::c9", ("gold/a.yaml", 9, "c9"), '{"n":2}')
    spool.add("gold/a.yaml::c2", ("gold/a.yaml", 2, "c2"), '{"n":3}')
    spool.add("gold/a.yaml::c9", ("gold/a.yaml", 9, "c9"), '{"n":4}')
    assert list(spool.texts()) == ['{"n":3}', '{"n":4}', '{"n":1}']
    assert len(spool) == 3
    spool.close()
    assert list(spool.texts()) == []


def test_the_spool_takes_entries_after_being_read_and_after_a_reader_left_unfinished() -> None:
    spool = Spool()
    spool.add("gold/a.yaml::c1", ("gold/a.yaml", 1, "c1"), '{"n":1}')
    spool.add("gold/a.yaml::c2", ("gold/a.yaml", 2, "c2"), '{"n":2}')
    unfinished = spool.texts()
    assert next(unfinished) == '{"n":1}'
    unfinished.close()
    spool.add("gold/a.yaml::c0", ("gold/a.yaml", 0, "c0"), '{"n":0}')
    assert list(spool.texts()) == ['{"n":0}', '{"n":1}', '{"n":2}']
    spool.add("gold/a.yaml::c3", ("gold/a.yaml", 3, "c3"), '{"n":3}')
    assert list(spool.texts()) == ['{"n":0}', '{"n":1}', '{"n":2}', '{"n":3}']
    left = spool.texts()
    next(left)
    spool.close()
    left.close()  # closing the spool first is no error for its reader
    assert list(spool.texts()) == []


def test_a_regression_is_a_red_line_and_the_headline_is_bold() -> None:
    fold = RunFold(baseline=BASELINE)
    fold.add(evaluated(result("gold/a.yaml", 1, "split")))  # a hit in the baseline
    fold.add(evaluated(result("gold/a.yaml", 2, "hit")))
    summary = fold.finish(existing={})
    outcome = gate_run(
        GateSettings(),
        summary.totals,
        comparison=summary.comparison,
        baseline=BASELINE,
        name="b.json",
        gold_files=summary.evaluated_files,
        setups={},
        documents={},
    )
    lines = summary_lines(summarise(summary, outcome, SummaryContext(baseline_name="b.json")))
    kinds = {line.text: line.kind for line in lines}
    assert kinds["  regression gold/a.yaml::c1: hit at rank 1 -> split"] == "regression"
    assert STYLES["regression"] == "red"
    assert STYLES[lines[0].kind] == "bold" and lines[0].text.startswith("chunkrecall: hit-rate")
    assert [line.kind for line in lines if line.text.startswith("chunkrecall gate:")] == [
        "gate_failed"
    ]


def failing(count: int) -> RunFold:
    fold = RunFold()
    for line in range(1, count + 1):
        fold.add(evaluated(result("gold/a.yaml", line, "absent")))
    return fold


def test_a_run_of_many_failures_says_once_how_to_list_them_fast() -> None:
    summary = failing(SLOW_LISTING + 1).finish()
    said = [
        line.text
        for line in summary_lines(summarise(summary, GateOutcome(), SummaryContext(tbstyle="auto")))
        if "--tb=line" in line.text
    ]
    assert said == [
        f"chunkrecall: {SLOW_LISTING + 1} gold cases failed, and pytest takes time that grows "
        "with the square of their number to list failures: --tb=line, or --tb=no with "
        "--chunkrecall-report or --chunkrecall-html, avoids that listing"
    ]
    for quiet in ("line", "no"):
        lines = summary_lines(summarise(summary, GateOutcome(), SummaryContext(tbstyle=quiet)))
        assert not any("--tb=line" in line.text for line in lines)
    few = failing(SLOW_LISTING).finish()
    lines = summary_lines(summarise(few, GateOutcome(), SummaryContext(tbstyle="auto")))
    assert not any("--tb=line" in line.text for line in lines)


def test_the_item_and_the_compare_command_decide_an_outcome_alike() -> None:
    hit, split, absent = (result("gold/a.yaml", 1, v) for v in ("hit", "split", "absent"))
    known, was_hit = Entry("split", None, True), Entry("hit", 1, False)
    assert case_outcome(hit, None, xfail=None, gate="cases").outcome == "passed"
    assert case_outcome(hit, None, xfail="later", gate="cases").outcome == "xpassed"
    assert case_outcome(split, None, xfail="later", gate="cases") == case_outcome(
        split, known, xfail="later", gate="cases"
    )
    assert case_outcome(split, None, xfail="later", gate="cases").reason is None
    decided = case_outcome(split, known, xfail=None, gate="cases")
    assert (decided.outcome, decided.reason) == ("xfailed", "known miss in baseline: split")
    assert case_outcome(absent, known, xfail=None, gate="cases").outcome == "failed"
    assert case_outcome(split, was_hit, xfail=None, gate="cases").outcome == "failed"
    assert case_outcome(split, was_hit, xfail=None, gate="significant").outcome == "xfailed"
    updating = case_outcome(split, None, xfail=None, gate="cases", updating=True)
    assert updating.reason == "recorded in the baseline as a known miss: split"
