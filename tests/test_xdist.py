"""With pytest-xdist: the same summary and the same JSON report as a serial run."""

from __future__ import annotations

import json

import pytest

from .conftest import QUIET, assert_no_internals, dedent
from .test_verdicts import FACTS, TOP1

pytest.importorskip("xdist")


@pytest.fixture
def suite(shop):
    """Two gold files over the article's corpus, with every outcome, and a conftest retriever."""
    shop.pytester.makeconftest(TOP1)
    for overlap in (0, 24):
        shop.gold(
            f"corpus: ../docs/policies.md\nchunker_args: {{size: 80, overlap: {overlap}}}\n"
            f"k: 1\n{dedent(FACTS)}",
            f"gold/overlap{overlap}.yaml",
        )
    shop.gold(
        """
        corpus: ../docs/*.md
        chunker: rag:sentences
        retriever: rag:keywords
        cases:
          - id: soak
            question: soak leather
            needle: never soak the leather
          - id: paper
            question: leather
            needle: stuffed with paper
            k: 1
            xfail: the first sentence about leather wins
          - id: later
            question: anything
            needle: saddle soap
            skip: not yet
          - id: typo
            question: stains
            needle: saddle soup
          - id: cloth
            question: wipe
            needle: once a week
            xfail: true
        """,
        "gold/care.yaml",
    )
    return shop


def run(shop, *args):
    """xdist's workers need a process of their own; a serial run does not."""
    path = shop.path / "r.json"
    path.unlink(missing_ok=True)
    runner = shop.pytester.runpytest_subprocess if "-n" in args else shop.pytester.runpytest
    result = runner(*QUIET, "--chunkrecall-report", "r.json", *args)
    return result, json.loads(path.read_text(encoding="utf-8"))


def summary(result) -> list[str]:
    """The chunkrecall section of the terminal summary."""
    lines = result.outlines
    start = next(i for i, line in enumerate(lines) if "= chunkrecall =" in line)
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("="))
    return lines[start:end]


def test_two_workers_give_the_serial_summary_and_report(suite):
    serial, serial_report = run(suite, "-p", "no:xdist")
    parallel, parallel_report = run(suite, "-n", "2")
    parallel.stdout.fnmatch_lines(["*2 workers*"])
    outcomes = dict(passed=6, failed=6, xfailed=1, xpassed=1, skipped=1)
    serial.assert_outcomes(**outcomes)
    parallel.assert_outcomes(**outcomes)
    assert summary(parallel) == summary(serial)
    assert parallel_report == serial_report
    assert serial_report["totals"]["cases"] == 14
    assert len(serial_report["gold_files"]) == 3
    assert {case["outcome"] for case in serial_report["cases"]} == {
        "passed",
        "failed",
        "xfailed",
        "xpassed",
        "skipped",
    }
    assert summary(serial)[1].startswith(
        "chunkrecall: hit-rate 7/14 (50.0%) [95% CI 26.8-73.2%], split spans 5"
    )


def test_a_broken_gold_file_under_xdist_is_reported_without_internals(suite):
    suite.gold(
        """
        corpus: ../docs/policies.md
        chunker: rag:does_not_exist
        cases:
          - question: q
            needle: n
        """,
        "gold/broken.yaml",
    )
    result = suite.pytester.runpytest_subprocess(*QUIET, "-n", "2")
    result.stdout.fnmatch_lines(["*chunkrecall: gold/broken.yaml:2: chunker 'rag:does_not_exist'*"])
    assert result.ret != pytest.ExitCode.OK
    assert_no_internals(result)
