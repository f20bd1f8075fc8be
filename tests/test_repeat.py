"""chunkrecall_repeat: each question asked N times, unstable cases, their worst result, quarantine."""

from __future__ import annotations

import html
import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_chunkrecall.__main__ import main
from pytest_chunkrecall.evaluation.repeat import SEVERITY, combined
from pytest_chunkrecall.evaluation.results import CaseResult

from .conftest import RX_AS_PYTEST_8_3_PRINTS_IT, Shop
from .test_integrations import html_data
from .test_xdist import summary

# Ties between equally scored chunks, broken the way a replicated index behind a load
# balancer breaks them: each asking of a question (at one k) goes to the next replica, whose
# order of tied chunks is turned by one. Calls are logged, one line each, to calls.log.
REPLICAS = """
import collections
import json


def build(chunks):
    asked = collections.Counter()

    def order(question, k):
        words = question.lower().split()
        score = [sum(w in chunk.text.lower() for w in words) for chunk in chunks]
        turn = asked[(question, k)]
        asked[(question, k)] += 1
        n = len(chunks)
        return sorted(range(n), key=lambda i: (-score[i], (i - turn) % n))[:k]

    class Replicas:
        def search(self, question, k):
            log(["search", question, k])
            return order(question, k)

        def search_batch(self, questions, k):
            log(["batch", questions, k])
            return [order(question, k) for question in questions]

    return Replicas()


def log(call):
    with open("calls.log", "a", encoding="utf-8") as out:
        out.write(json.dumps(call) + "\\n")
"""

# Ties broken by the order of a set of strings: the same in one process, but str hashes
# depend on PYTHONHASHSEED, so two processes may order them differently.
SEEDED = """
def build(chunks):
    def search(question, k):
        words = question.lower().split()
        tied = {}
        for chunk in chunks:
            score = sum(w in chunk.text.lower() for w in words)
            tied.setdefault(score, set()).add(chunk.text)
        return [text for score in sorted(tied, reverse=True) for text in tied[score]][:k]

    return search
"""

# Ties broken by chance, from a generator no test seeds.
CHANCE = """
import random


def build(chunks):
    chance = random.Random()

    def search(question, k):
        words = question.lower().split()
        score = {c.index: sum(w in c.text.lower() for w in words) for c in chunks}
        return sorted(score, key=lambda i: (-score[i], chance.random()))[:k]

    return search
"""

# Seven sentence chunks; "zzz" ties them all. The refund sentence is chunk 2.
GOLD = """
    corpus: ../docs/policies.md
    chunker: rag:sentences
    retriever: replicas:build
    k: 2
    cases:
      - id: tied
        question: zzz
        needle: 30 days
      - id: restocking
        question: restocking fee
        needle: 15 percent
"""


@pytest.fixture
def replicas(shop: Shop) -> Shop:
    shop.write("replicas.py", REPLICAS)
    shop.gold(GOLD)
    return shop


def calls(shop: Shop) -> list[list[object]]:
    log = shop.path / "calls.log"
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


# ---------------------------------------------------------------- the worst of the repeats


def result(verdict: str, rank: int | None, holding_rank: int | None) -> CaseResult:
    return CaseResult(
        gold_file="gold/a.yaml", id="a", line=3, question="q", needles=["n"], span=None,
        verdict=verdict, rank=rank, span_split=verdict == "split", k=3, match="normalized",
        needle_lengths=[1], span_length=1, unit="chars", holding_rank=holding_rank,
    )  # fmt: skip


def worse(a: CaseResult, b: CaseResult) -> bool:
    """Whether ``a`` is worse than ``b``, by the documented order, said rule by rule."""
    order = ["hit", "reranked_out", "ranked_out", "split", "unparsed", "absent", "leaked"]
    if order.index(a.verdict) != order.index(b.verdict):
        return order.index(a.verdict) > order.index(b.verdict)
    if a.holding_rank is None or b.holding_rank is None:
        return a.holding_rank is None and b.holding_rank is not None
    return a.holding_rank > b.holding_rank


repeats = st.lists(
    st.one_of(
        st.integers(1, 3).map(lambda rank: result("hit", rank, rank)),
        st.sampled_from(SEVERITY[1:]).flatmap(
            lambda verdict: st.one_of(st.none(), st.integers(4, 9)).map(
                lambda deeper: result(verdict, None, deeper)
            )
        ),
    ),
    min_size=2,
    max_size=6,
)


@given(repeats)
def test_the_combined_result_is_the_first_worst_repeat_and_unstable_when_any_differ(results):
    found = combined(results)
    first_worst = next(r for r in results if not any(worse(o, r) for o in results))
    assert (found.verdict, found.rank, found.holding_rank) == (
        first_worst.verdict,
        first_worst.rank,
        first_worst.holding_rank,
    )
    differ = any(
        (a.verdict, a.rank, a.holding_rank) != (b.verdict, b.rank, b.holding_rank)
        for a in results
        for b in results
    )
    assert found.unstable is differ
    assert found.ranks_seen == [r.rank if r.verdict == "hit" else None for r in results]


@given(repeats, repeats)
def test_combining_combined_results_is_combining_all_their_repeats(first, second):
    at_once = combined(first + second)
    in_two = combined([combined(first), combined(second)])
    assert in_two.ranks_seen == at_once.ranks_seen
    assert in_two.unstable == at_once.unstable
    assert (in_two.verdict, in_two.holding_rank) == (at_once.verdict, at_once.holding_rank)


def test_a_case_asked_once_is_its_result_as_it_is():
    once = result("hit", 2, 2)
    assert combined([once]) is once
    assert "unstable" not in once.to_json() and "ranks_seen" not in once.to_json()


# ---------------------------------------------------------------- a run with repeats


def test_repeats_ask_again_and_an_unstable_case_counts_at_its_worst(replicas):
    replicas.ini("chunkrecall_repeat = 3")
    result, report = replicas.report("--junitxml=junit.xml", "--chunkrecall-markdown", "s.md")
    result.assert_outcomes(passed=1, failed=1)
    cases = {case["id"]: case for case in report["cases"]}
    tied, stable = cases["tied"], cases["restocking"]
    # the top 2 of chunks 0-1, then 1-2, then 2-3: the refund sentence (chunk 2) missed, 2nd, 1st
    assert tied["ranks_seen"] == [None, 2, 1]
    assert tied["unstable"] is True
    assert (tied["verdict"], tied["rank"], tied["outcome"]) == ("ranked_out", None, "failed")
    assert stable["ranks_seen"] == [1, 1, 1]
    assert stable["unstable"] is False
    assert report["totals"]["hits"] == 1
    assert "1 unstable case, counted at its worst" in (replicas.path / "s.md").read_text()
    properties = {
        case.get("name"): {p.get("name"): p.get("value") for p in case.iter("property")}
        for case in ET.parse(replicas.path / "junit.xml").iter("testcase")
    }
    assert properties["tied"]["unstable"] == "True"
    assert properties["tied"]["ranks_seen"] == "missed, 2, 1"


def test_repeats_go_through_the_batches_each_batch_one_repeat(replicas):
    replicas.ini("chunkrecall_repeat = 3\nchunkrecall_depth = 0")
    replicas.report()
    batches = [call for call in calls(replicas) if call[0] == "batch"]
    assert batches == [["batch", ["zzz", "restocking fee"], 2]] * 3
    assert [call for call in calls(replicas) if call[0] == "search"] == []


def test_repeats_go_through_the_calls_in_flight(replicas):
    replicas.ini("chunkrecall_repeat = 3\nchunkrecall_depth = 0\nchunkrecall_concurrency = 3")
    cases = replicas.cases()
    # which call got which replica depends on the threads; what the three saw does not
    assert sorted(cases["tied"]["ranks_seen"], key=str) == [1, 2, None]
    assert cases["tied"]["unstable"] is True
    assert cases["tied"]["verdict"] == "ranked_out"
    asked = [question for call in calls(replicas) for question in call[1]]
    assert sorted(asked) == ["restocking fee"] * 3 + ["zzz"] * 3  # each repeat of each, once


@pytest.mark.slow
def test_repeats_under_xdist_give_the_same_report_and_summary(replicas):
    replicas.ini("chunkrecall_repeat = 3")
    one, serial = replicas.report()
    result, parallel = replicas.report("-n", "2")
    assert parallel["cases"] == serial["cases"]
    assert parallel["totals"] == serial["totals"]
    assert summary(result) == summary(one)


def test_asked_once_the_report_has_no_repeat_keys_and_is_the_same_as_without_the_option(
    replicas,
):
    replicas.report()
    without = (replicas.path / "chunkrecall.json").read_bytes()
    replicas.ini("chunkrecall_repeat = 1")
    _, report = replicas.report()
    assert (replicas.path / "chunkrecall.json").read_bytes() == without
    assert not any("unstable" in case or "ranks_seen" in case for case in report["cases"])


def test_a_stable_run_names_no_unstable_case(replicas):
    replicas.gold(GOLD.replace("retriever: replicas:build", "retriever: rag:keywords"))
    replicas.ini("chunkrecall_repeat = 2")
    result, report = replicas.report()
    assert all(case["unstable"] is False for case in report["cases"])
    assert "unstable case" not in result.stdout.str()


def test_quarantine_makes_an_unstable_case_an_expected_failure_kept_out_of_the_baseline(
    replicas,
):
    replicas.ini("chunkrecall_repeat = 3\nchunkrecall_unstable = quarantine")
    result = replicas.run("--chunkrecall-baseline", "b.json", "--chunkrecall-update-baseline")
    result.assert_outcomes(passed=1, xfailed=1)
    # the quarantined case's result, lucky or not, is not recorded
    recorded = json.loads((replicas.path / "b.json").read_text())
    assert list(recorded["gold_files"]["gold/policies.yaml"]["cases"]) == ["restocking"]
    result, report = replicas.report("--chunkrecall-baseline", "b.json", "-rx")
    result.assert_outcomes(passed=1, xfailed=1)
    assert result.ret == 0
    assert report["comparison"]["cases"] == 1
    assert [case["outcome"] for case in report["cases"]] == ["xfailed", "passed"]


# ---------------------------------------------------------------- what a user reads


def test_an_unstable_case_shows_the_rank_of_each_asking(replicas, golden):
    replicas.ini("chunkrecall_repeat = 3")
    result = golden.run()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    golden.check("unstable", "pytest", result)


@RX_AS_PYTEST_8_3_PRINTS_IT
def test_a_quarantined_case_is_an_expected_failure_left_out_of_the_comparison(replicas, golden):
    replicas.ini("chunkrecall_repeat = 3\nchunkrecall_unstable = quarantine")
    replicas.run("--chunkrecall-baseline", "b.json", "--chunkrecall-update-baseline")
    result = golden.run("--chunkrecall-baseline", "b.json", "-rx")
    assert result.ret == pytest.ExitCode.OK
    golden.check("quarantined", "pytest --chunkrecall-baseline b.json -rx", result)


def test_a_quarantined_case_that_hit_shows_why_it_is_an_expected_failure(replicas):
    # At k 3 every asking finds the tied refund sentence, at ranks 3, 2 and 1: unstable,
    # never missed. pytest-html shows the case's reason as its log, no traceback.
    pytest.importorskip("pytest_html")
    replicas.gold(GOLD.replace("k: 2", "k: 3"))
    replicas.ini("chunkrecall_repeat = 3\nchunkrecall_unstable = quarantine")
    result = replicas.run("--html", "page.html", "--self-contained-html")
    result.assert_outcomes(passed=1, xfailed=1)
    tests = html_data((replicas.path / "page.html").read_text(encoding="utf-8"))["tests"]
    (call,) = [run for run in tests["gold/policies.yaml::tied"] if run["result"] == "XFailed"]
    assert html.unescape(call["log"]).rstrip("\n") == (
        "chunkrecall: unstable: ranks seen 3, 2, 1 "
        "(chunkrecall_unstable = quarantine leaves it out of the baseline comparison)"
    )
    # it is no miss: the summary counts no expected one
    result.stdout.fnmatch_lines(["verdicts: hit 2, split 0, ranked_out 0, absent 0"])


@pytest.mark.parametrize(
    ("policy", "outcomes", "regressions"),
    [("strict", {"passed": 1, "failed": 1}, 1), ("quarantine", {"passed": 1, "xfailed": 1}, 0)],
)
def test_a_case_the_baseline_has_as_a_lucky_hit(replicas, policy, outcomes, regressions):
    replicas.run("--chunkrecall-baseline", "b.json", "--chunkrecall-update-baseline")
    saved = replicas.path / "b.json"
    missed = '"tied": {"verdict": "ranked_out", "rank": null, "span_split": false}'
    assert missed in saved.read_text()
    saved.write_text(
        saved.read_text().replace(
            missed, '"tied": {"verdict": "hit", "rank": 2, "span_split": false}'
        )
    )
    replicas.ini(f"chunkrecall_repeat = 3\nchunkrecall_unstable = {policy}")
    result, report = replicas.report("--chunkrecall-baseline", "b.json")
    result.assert_outcomes(**outcomes)
    assert report["comparison"]["regressions"] == regressions
    if policy == "strict":
        # its worst repeat, a miss, is what the baseline's hit is set against
        result.stdout.fnmatch_lines(
            ["  regression gold/policies.yaml::tied: hit at rank 2 -> ranked_out"]
        )


@pytest.mark.parametrize(
    ("ini", "message"),
    [
        ("chunkrecall_repeat = 0", "must be a whole number from 1 to 100, not 0"),
        ("chunkrecall_repeat = x", "must be a whole number from 1 to 100, not 'x'"),
        ("chunkrecall_unstable = maybe", "must be one of strict, quarantine, not 'maybe'"),
    ],
)
def test_a_bad_repeat_option_is_a_usage_error_before_any_test(replicas, ini, message):
    replicas.ini(ini)
    result = replicas.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    option = ini.split(" =")[0]
    assert result.stderr.lines[0] == f"ERROR: ini option {option} {message}"
    assert not (replicas.path / "calls.log").exists()


# ---------------------------------------------------------------- real sources of instability


def test_repeats_in_one_process_see_a_retriever_that_breaks_ties_by_chance(replicas):
    replicas.write("chance.py", CHANCE)
    replicas.gold(GOLD.replace("replicas:build", "chance:build"))
    # 8 draws of the refund sentence's place among 7 tied chunks (and of the holding rank
    # deeper down) all alike: (1/7) ** 7 for each, once in 800,000 runs
    replicas.ini("chunkrecall_repeat = 8")
    cases = replicas.cases()
    assert cases["tied"]["unstable"] is True
    assert len(cases["tied"]["ranks_seen"]) == 8
    seen = [rank for rank in cases["tied"]["ranks_seen"] if rank is not None]
    if None in cases["tied"]["ranks_seen"]:
        assert cases["tied"]["verdict"] == "ranked_out"
    else:
        assert cases["tied"]["rank"] == max(seen)
    assert cases["restocking"]["unstable"] is False


def rank_under_seed(shop: Shop, seed: int) -> int:
    """Where the seeded retriever ranks the refund sentence, all chunks tied, under ``seed``."""
    probe = (
        "import rag, seeded; from pytest_chunkrecall import Chunk\n"
        "text = open('docs/policies.md').read()\n"
        "chunks = [Chunk(t, 'docs/policies.md', i) for i, t in enumerate(rag.sentences(text))]\n"
        "ranked = seeded.build(chunks)('zzz', len(chunks))\n"
        "print(next(r for r, t in enumerate(ranked, 1) if '30 days' in t))\n"
    )
    found = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=shop.path,
        env={"PYTHONHASHSEED": str(seed), "PYTHONPATH": f"{shop.path}:{sys.path[0]}"},
        capture_output=True,
        text=True,
        check=True,
    )
    return int(found.stdout)


@pytest.mark.slow
def test_runs_under_two_hash_seeds_merged_as_repeats_show_the_case_unstable(
    replicas, monkeypatch, capsys
):
    replicas.write("seeded.py", SEEDED)
    replicas.gold(GOLD.replace("replicas:build", "seeded:build"))
    ranks: dict[int, int] = {}
    for seed in range(40):  # a top 2 of 7 shuffled chunks: each seed is lucky 2 times in 7
        ranks[seed] = rank_under_seed(replicas, seed)
        if min(ranks.values()) <= 2 < max(ranks.values()):
            break
    lucky = next(seed for seed, rank in ranks.items() if rank <= 2)
    unlucky = next(seed for seed, rank in ranks.items() if rank > 2)
    reports = {}
    for seed in (lucky, unlucky):
        # within one process the ties fall the same way every time: repeats see nothing
        replicas.ini("chunkrecall_repeat = 2")
        monkeypatch.setenv("PYTHONHASHSEED", str(seed))
        name = f"seed{seed}.json"
        replicas.pytester.runpytest_subprocess(
            "-p", "no:randomly", "--chunkrecall-report", name,
            *(["--chunkrecall-baseline", "b.json", "--chunkrecall-update-baseline"]
              if seed == lucky else []),
        )  # fmt: skip
        reports[seed] = json.loads((replicas.path / name).read_text())["cases"][0]
        assert reports[seed]["unstable"] is False
    assert reports[lucky]["rank"] == ranks[lucky]
    assert reports[unlucky]["verdict"] == "ranked_out"
    monkeypatch.chdir(replicas.path)
    merged = ["merge", "--repeats", f"seed{lucky}.json", f"seed{unlucky}.json", "--out", "m.json"]
    assert main(merged) == 0
    tied = json.loads((replicas.path / "m.json").read_text())["cases"][0]
    assert tied["unstable"] is True
    assert tied["ranks_seen"] == [ranks[lucky]] * 2 + [None] * 2
    assert (tied["verdict"], tied["outcome"]) == ("ranked_out", "failed")
    # against the baseline the lucky seed wrote, the unstable case is a regression, or left out
    capsys.readouterr()
    assert main(["compare", "m.json", "--baseline", "b.json"]) == 1
    assert "  regression gold/policies.yaml::tied: hit at rank" in capsys.readouterr().out
    assert main(["compare", "m.json", "--baseline", "b.json", "--unstable", "quarantine"]) == 0
    out = capsys.readouterr().out
    assert (
        "chunkrecall: 1 unstable case left out of the comparison: gold/policies.yaml::tied" in out
    )
    assert "0 regressions" in out


def test_merge_refuses_repeats_that_hold_other_cases(replicas, monkeypatch, capsys):
    replicas.run("--chunkrecall-report", "all.json")
    replicas.run("--chunkrecall-report", "one.json", "-k", "tied")
    monkeypatch.chdir(replicas.path)
    assert main(["merge", "--repeats", "all.json", "one.json", "--out", "m.json"]) == 2
    assert capsys.readouterr().err == (
        "error: gold/policies.yaml::restocking is in all.json and not in one.json: repeats of a "
        "run hold the same cases (select the same tests in each)\n"
    )
    assert not (replicas.path / "m.json").exists()


def test_what_varied_between_repeats_that_all_missed_is_said_in_words():
    """Ranks seen 'missed, missed, missed' say nothing: the verdicts, holding ranks and
    chunks that differed do."""
    repeats = [
        replace(result("ranked_out", None, 7), holding_ids=["docs/a.md#3"]),
        replace(result("ranked_out", None, 12), holding_ids=["docs/a.md#3"]),
        replace(result("split", None, None)),
    ]
    found = combined(repeats)
    assert found.ranks_seen == [None, None, None]
    assert found.varied == (
        "verdict ranked_out 2 times, split; holding rank 7, 12, deeper than looked; "
        "chunk docs/a.md#3 2 times, none"
    )
    assert found.to_json()["varied"] == found.varied


def test_what_the_ranks_say_is_not_said_again():
    """A miss then a hit at rank 2: the ranks seen say it; nothing else varied."""
    hit = replace(result("hit", 2, 2), retrieved_ids=["docs/a.md#1", "docs/a.md#2"])
    assert combined([result("ranked_out", None, 4), hit]).varied == ""
    other = replace(hit, retrieved_ids=["docs/a.md#1", "docs/a.md#5"])
    assert combined([hit, other]).varied == "chunk docs/a.md#2, docs/a.md#5"


def test_the_summary_says_what_varied_between_repeats_that_all_missed(replicas):
    """k = 1 over tied chunks: every repeat misses, but each finds the refund sentence at
    another depth."""
    replicas.gold(GOLD.replace("k: 2", "k: 1"))
    replicas.ini("chunkrecall_repeat = 2")
    result, report = replicas.report()
    tied = {case["id"]: case for case in report["cases"]}["tied"]
    assert tied["ranks_seen"] == [None, None]
    assert tied["varied"].startswith("holding rank ")
    result.stdout.fnmatch_lines(
        [
            "chunkrecall: 1 unstable case, counted at its worst: *tied (ranks seen missed, "
            "missed; holding rank *)*"
        ]
    )
