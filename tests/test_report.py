"""The terminal summary and the JSON report: totals, gold files, cases and their outcomes."""

from __future__ import annotations

import json

import pytest

from .conftest import POLICIES, RAG, assert_no_internals

OUTCOMES = """
    corpus: ../docs/policies.md
    chunker_args: {size: 80, overlap: 0}
    retriever: rag:keywords
    k: 1
    cases:
      - id: fee
        question: restocking fee
        needle: 15 percent
      - id: refund
        question: refund window
        needle: 30 days
        span: The refund window is 30 days
      - id: customs
        question: customs clearance
        needle: 9 dollars
        span: {from: Customs clearance, to: 9 dollars}
        xfail: anchor and value sit farther apart than one chunk
      - id: fee-again
        question: restocking fee
        needle: 15 percent
        xfail: true
      - id: later
        question: express shipping
        needle: 2 business days
        skip: not written yet
      - id: slow
        question: warranty coverage
        needle: 12 months
        marks: [slow]
"""


def headline(result: pytest.RunResult) -> str:
    """The summary's one ``chunkrecall: hit-rate`` line (the contract CI scripts grep for)."""
    (line,) = [line for line in result.outlines if line.startswith("chunkrecall: hit-rate ")]
    return line


def test_summary_lines(shop):
    shop.gold(OUTCOMES)
    result = shop.run("-p", "no:randomly")
    result.assert_outcomes(passed=1, failed=2, xfailed=1, xpassed=1, skipped=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    # The contract: "hit-rate H/N (P%)" and "split spans S" on the line that starts the summary;
    # the rest of its layout is kept whole in tests/golden.
    assert headline(result).startswith("chunkrecall: hit-rate 2/5 (40.0%)")
    assert headline(result).endswith(", split spans 3")
    per_file = [line for line in result.outlines if line.startswith("gold/policies.yaml: hit-rate")]
    assert per_file == [
        "gold/policies.yaml: hit-rate 2/5 (40.0%) [95% CI 11.8-76.9%], split spans 3"
    ]
    assert (
        "verdicts: hit 2, split 3, ranked_out 0, absent 0 (1 of the 3 misses expected)"
        in result.outlines
    )


def test_gold_files_with_one_setup_say_it_once(shop):
    setup = "corpus: ../docs/policies.md\nchunker_args: {size: 80, overlap: 0}\nretriever: rag:keywords\n"
    case = "cases:\n  - question: restocking fee\n    needle: 15 percent\n"
    shop.gold(setup + "k: 1\n" + case, "gold/a.yaml")
    shop.gold(setup + "k: 1\n" + case, "gold/b.yaml")
    shop.gold(setup + "k: 2\n" + case, "gold/c.yaml")
    result = shop.run("-p", "no:randomly")
    result.assert_outcomes(passed=3)
    # Each gold file's first line under its own name: b.yaml, set up as a.yaml, names a.yaml
    # instead of its own corpus and geometry lines; c.yaml (another k) has its own.
    under: dict[str, list[str]] = {}
    for line in result.outlines:
        if line.startswith("gold/") and ": hit-rate " in line:
            under[line.split(":")[0]] = []
        elif line.startswith("  ") and under:
            under[list(under)[-1]].append(line.split(":")[0].split(";")[0])
    assert under == {
        "gold/a.yaml": ["  corpus ../docs/policies.md", "  geometry"],
        "gold/b.yaml": ["  corpus, chunker, retriever and geometry as gold/a.yaml"],
        "gold/c.yaml": ["  corpus ../docs/policies.md", "  geometry"],
    }


def test_json_report_fields_and_outcomes(shop):
    shop.gold(OUTCOMES)
    result, report = shop.report()
    assert report["chunkrecall_report"] == 1
    assert report["totals"] == {
        "cases": 5,
        "hits": 2,
        "hit_rate": 0.4,
        "hit_rate_ci95": [0.117621, 0.769276],
        "mrr": 0.4,
        "hit_rate_at": {"1": 0.4},
        "split_spans": 3,
        "pieces_retrieved": 0,
        "verdicts": {
            **{"hit": 2, "split": 3, "ranked_out": 0, "absent": 0},
            **{"unparsed": 0, "reranked_out": 0, "leaked": 0},
        },
        "funnel": {"cases": 5, "loaded": 5, "whole": 2, "candidates": 2, "top_k": 2},
        # k = 1 with 80-char chunks: every case got 80 chars back, 2 hits over 400 chars
        "context": {"unit": "chars", "mean": 80.0, "to_answer_mean": 80.0, "hits_per_1k": 5.0},
    }
    (gold,) = report["gold_files"]
    assert (gold["path"], gold["chunks"], gold["corpus_chars"]) == (
        "gold/policies.yaml",
        7,
        len(POLICIES),
    )
    cases = {c["id"]: c for c in report["cases"]}
    assert list(cases) == ["fee", "refund", "customs", "fee-again", "later", "slow"]
    expected = {
        "fee": ("hit", 1, False, "passed"),
        "refund": ("split", None, True, "failed"),
        "customs": ("split", None, True, "xfailed"),
        "fee-again": ("hit", 1, False, "xpassed"),
        "later": (None, None, None, "skipped"),
        "slow": ("split", None, True, "failed"),
    }
    for case_id, (verdict, rank, span_split, outcome) in expected.items():
        case = cases[case_id]
        assert case["nodeid"] == f"gold/policies.yaml::{case_id}"
        assert case["gold_file"] == "gold/policies.yaml"
        assert case["id"] == case_id
        assert (case["verdict"], case["rank"], case["span_split"], case["outcome"]) == (
            verdict,
            rank,
            span_split,
            outcome,
        ), case_id
    assert (
        f"chunkrecall: JSON report written to {shop.path / 'chunkrecall.json'}" in result.outlines
    )


def test_the_report_is_plain_json_written_whole(shop):
    shop.gold(OUTCOMES)
    shop.run("--chunkrecall-report", "out/nested/report.json")
    text = (shop.path / "out/nested/report.json").read_text(encoding="utf-8")
    assert json.loads(text)["chunkrecall_report"] == 1
    assert not [p for p in (shop.path / "out/nested").iterdir() if p.name != "report.json"]


def test_xfail_strict_turns_an_unexpected_hit_into_a_failure(shop):
    shop.gold(OUTCOMES)
    shop.ini("xfail_strict = true")
    result, report = shop.report()
    result.assert_outcomes(passed=1, failed=3, xfailed=1, skipped=1)
    outcomes = {c["id"]: c["outcome"] for c in report["cases"]}
    assert outcomes["fee-again"] == "failed"
    assert outcomes["customs"] == "xfailed"


def test_marks_from_yaml_select_cases(shop):
    shop.gold(OUTCOMES)
    shop.ini("markers =\n    slow: slow cases")
    result, report = shop.report("-m", "slow", "--strict-markers")
    result.assert_outcomes(failed=1, deselected=5)
    assert [case["id"] for case in report["cases"]] == ["slow"]
    assert (report["totals"]["cases"], report["totals"]["split_spans"]) == (1, 1)
    result = shop.run("-m", "not slow")
    result.assert_outcomes(passed=1, failed=1, xfailed=1, xpassed=1, skipped=1, deselected=1)


def test_summary_counts_only_the_cases_that_ran(shop):
    shop.gold(OUTCOMES)
    result, report = shop.report("-k", "fee")
    result.assert_outcomes(passed=1, xpassed=1, deselected=4)
    assert report["totals"]["cases"] == 2
    assert [c["id"] for c in report["cases"]] == ["fee", "fee-again"]
    assert headline(result).startswith("chunkrecall: hit-rate 2/2 (100.0%)")


def test_one_line_per_gold_file(shop):
    shop.gold(OUTCOMES)
    shop.gold(
        """
        corpus: ../docs/care.md
        chunker: rag:sentences
        k: 3
        cases:
          - id: soak
            question: can I soak leather
            needle: never soak the leather
        """,
        "gold/care.yaml",
    )
    result, report = shop.report()
    assert (report["totals"]["hits"], report["totals"]["cases"]) == (3, 6)
    assert [g["path"] for g in report["gold_files"]] == ["gold/care.yaml", "gold/policies.yaml"]
    care, policies = report["gold_files"]
    assert (care["totals"]["hits"], care["totals"]["cases"], care["chunks"]) == (1, 1, 3)
    assert (care["chunker"], care["retriever"], care["k"]) == (
        "rag:sentences",
        "pytest_chunkrecall.retrievers:bm25",
        3,
    )
    assert (policies["totals"]["hits"], policies["totals"]["cases"]) == (2, 5)
    # one line per gold file, in the report's order
    named = [line.split(":")[0] for line in result.outlines if ".yaml: hit-rate " in line]
    assert named == ["gold/care.yaml", "gold/policies.yaml"]


def test_no_summary_without_gold_cases(shop):
    shop.pytester.makepyfile(test_plain="def test_ok():\n    pass\n")
    result = shop.run()
    result.assert_outcomes(passed=1)
    result.stdout.no_fnmatch_line("*= chunkrecall =*")
    result.stdout.no_fnmatch_line("chunkrecall: hit-rate*")


def test_paths_are_relative_to_the_rootdir_wherever_pytest_runs(shop, monkeypatch):
    shop.gold(OUTCOMES)
    monkeypatch.chdir(shop.path / "gold")
    result = shop.pytester.runpytest("policies.yaml", "--chunkrecall-report", "../r.json")
    report = json.loads((shop.path / "r.json").read_text())
    assert report["gold_files"][0]["path"] == "gold/policies.yaml"
    assert report["cases"][0]["nodeid"] == "gold/policies.yaml::fee"
    assert any(line.startswith("gold/policies.yaml: hit-rate 2/5") for line in result.outlines)


def test_an_unregistered_mark_is_reported_at_its_case(shop):
    # A name no other test registers: pytest remembers registered marks process-wide.
    shop.gold(
        """
        corpus: ../docs/policies.md
        cases:
          - id: fee
            question: restocking fee
            needle: 15 percent
            marks: [nightly_unregistered]
        """
    )
    result = shop.run()
    result.stdout.fnmatch_lines(
        ["gold/policies.yaml:3", "*PytestUnknownMarkWarning: *nightly_unregistered*"]
    )
    assert_no_internals(result)
    result = shop.run("--strict-markers")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["chunkrecall: gold/policies.yaml:3: mark 'nightly_unregistered' not found*"]
    )
    assert_no_internals(result)


def test_every_gold_file_entry_has_the_contract_fields(shop):
    shop.gold(OUTCOMES)
    shop.gold(
        """
        corpus: ../docs/care.md
        cases:
          - id: later
            question: soak
            needle: soak
            skip: not yet
        """,
        "gold/care.yaml",
    )
    _, report = shop.report()
    entries = {g["path"]: g for g in report["gold_files"]}
    assert set(entries) == {"gold/care.yaml", "gold/policies.yaml"}
    for entry in entries.values():
        assert {"path", "chunks", "corpus_chars"} <= set(entry)
    assert (entries["gold/care.yaml"]["chunks"], entries["gold/care.yaml"]["corpus_chars"]) == (
        None,
        None,
    )


def test_a_gold_file_whose_setup_failed_still_has_the_contract_fields(shop):
    shop.ini("chunkrecall_corpus = docs/policies.md\nchunkrecall_chunker = rag:missing_in_action\n")
    shop.write(
        "rag.py", RAG + "\n\ndef missing_in_action(text):\n    raise RuntimeError('no model')\n"
    )
    shop.gold(
        """
        cases:
          - question: restocking fee
            needle: 15 percent
        """
    )
    _, report = shop.report()
    (gold,) = report["gold_files"]
    assert gold["chunks"] is None and gold["corpus_chars"] is None
    assert "no model" in gold["error"]
