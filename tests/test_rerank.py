"""The reranker stage: reranked_out, candidate_rank, the funnel, and a reranker's mistakes."""

from __future__ import annotations

import json

import pytest

from .conftest import assert_no_internals
from .test_xdist import summary

# The user's second stage: a reranker that never ranks a chunk about restocking.
RERANK = '''
def no_restocking(question, chunks, k):
    """The candidates in their order, without the restocking policy."""
    return [chunk for chunk in chunks if "restocking" not in chunk.text.lower()][:k]


def without(words=()):
    """A factory: a reranker that drops the chunks holding any of ``words``."""

    def rerank(question, chunks, k):
        return [c for c in chunks if not any(w in c.text.lower() for w in words)][:k]

    return rerank


class Reverse:
    """A factory of an object with a rerank method: the candidates, last first."""

    def __init__(self, keep=None):
        self.keep = keep

    def rerank(self, question, chunks, k):
        return list(reversed(chunks))[: self.keep or k]


def stranger(question, chunks, k):
    from pytest_chunkrecall import Chunk

    return [Chunk("Free shipping on every order.", "docs/policies.md", 999)]


def too_many(question, chunks, k):
    return list(chunks)


def text_only(question, chunks, k):
    return [7]
'''

GOLD = """
    corpus: ../docs/policies.md
    chunker: rag:sentences
    retriever: rag:keywords
    reranker: rerank:no_restocking
    candidates: 3
    k: 1
    cases:
      - id: refund-window
        question: refund window
        needle: 30 days
      - id: restocking
        question: restocking fee
        needle: 15 percent
      - id: warranty
        question: zzz
        needle: 12 months
      - id: across
        question: policy refund
        needle: refund window
        span: Read every policy below. The refund window
"""


# The funnel line, which the Markdown summary and compare print as the terminal does.
FUNNEL = (
    "funnel: 4 cases → 3 kept whole by chunking → 2 in the candidates → 1 in the top 1 "
    "(lost: 1 split, 1 ranked_out, 1 reranked_out)"
)


@pytest.fixture
def staged(shop):
    shop.write("rerank.py", RERANK)
    shop.gold(GOLD)
    return shop


def test_a_dropped_candidate_is_reranked_out_and_the_funnel_counts_each_stage(staged):
    result, report = staged.report()
    assert result.ret == 1
    result.assert_outcomes(passed=1, failed=3)
    cases = {case["id"]: case for case in report["cases"]}
    assert {name: case["verdict"] for name, case in cases.items()} == {
        "refund-window": "hit",
        "restocking": "reranked_out",
        "warranty": "ranked_out",
        "across": "split",
    }
    assert cases["refund-window"]["candidate_rank"] == 1
    assert cases["restocking"]["candidate_rank"] == 1
    assert cases["restocking"]["holding_rank"] == 1
    assert cases["warranty"]["candidate_rank"] is None
    assert cases["warranty"]["candidates"] == 3
    assert cases["restocking"]["reranker"] == "rerank:no_restocking"
    funnel = {"cases": 4, "loaded": 4, "whole": 3, "candidates": 2, "top_k": 1}
    assert report["totals"]["funnel"] == funnel
    assert report["gold_files"][0]["totals"]["funnel"] == funnel
    assert report["totals"]["verdicts"]["reranked_out"] == 1
    assert report["gold_files"][0]["reranker"] == "rerank:no_restocking"
    assert report["gold_files"][0]["candidates"] == 3
    # what a user reads for each stage's loss: tests/golden/reranked_out.txt


@pytest.mark.slow
def test_the_funnel_and_verdicts_are_the_same_under_xdist(staged):
    serial, one = staged.report()
    result, two = staged.report("-n", "2")
    assert summary(result) == summary(serial)
    assert two["totals"] == one["totals"]
    assert [case["verdict"] for case in two["cases"]] == [case["verdict"] for case in one["cases"]]


def test_without_a_reranker_the_funnel_has_no_candidates_step(shop):
    shop.gold(GOLD.replace("    reranker: rerank:no_restocking\n    candidates: 3\n", ""))
    result, report = shop.report()
    funnel = report["totals"]["funnel"]
    assert funnel["candidates"] == funnel["top_k"] == report["totals"]["hits"]
    assert funnel["loaded"] == funnel["cases"] == 4
    assert report["cases"][1].get("candidate_rank") is None
    assert "reranker" not in report["gold_files"][0]
    result.stdout.fnmatch_lines(["funnel: 4 cases → 3 kept whole by chunking → * in the top 1 *"])
    said = [
        line for line in result.outlines if line.startswith(("funnel:", "verdicts:", "  corpus"))
    ]
    assert len(said) == 3
    assert not any("candidates" in line or "reranked_out" in line for line in said)


@pytest.mark.parametrize(
    ("reranker", "verdict"),
    [
        ("reranker: rerank:without\n    reranker_args: {words: [restocking]}", "reranked_out"),
        ("reranker: rerank:without\n    reranker_args: {words: [zebra]}", "hit"),
        ("reranker: rerank:Reverse", "reranked_out"),
    ],
)
def test_a_factory_is_called_with_reranker_args(staged, reranker, verdict):
    staged.gold(GOLD.replace("reranker: rerank:no_restocking", reranker))
    cases = staged.cases()
    assert cases["restocking"]["verdict"] == verdict


@pytest.mark.parametrize(
    ("name", "message"),
    [
        (
            "stranger",
            "*reranker rerank:stranger returned a chunk it was not given ('Free shipping*",
        ),
        ("too_many", "*reranker rerank:too_many returned 3 chunks for the question *, but k is 1*"),
        ("text_only", "*reranker rerank:text_only returned an int at rank 1, which is no chunk*"),
    ],
)
def test_a_reranker_that_returns_what_it_was_not_given_is_named(staged, name, message):
    staged.gold(GOLD.replace("rerank:no_restocking", f"rerank:{name}"))
    result = staged.run()
    assert result.ret == 1
    result.assert_outcomes(failed=4)
    result.stdout.fnmatch_lines([message])
    assert_no_internals(result)


def test_fewer_candidates_than_k_is_a_usage_error_before_any_test(shop):
    shop.write("rerank.py", RERANK)
    shop.ini(
        """
        chunkrecall_candidates = 2
        chunkrecall_k = 3
        chunkrecall_reranker = rerank:no_restocking
        """
    )
    shop.gold(GOLD.replace("    candidates: 3\n    k: 1\n", ""))
    result = shop.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*ini option chunkrecall_candidates (2) is less than k (3, chunkrecall_k)*"]
    )


def test_fewer_candidates_than_a_cases_k_is_a_collection_error_at_its_line(staged):
    staged.gold(
        GOLD.replace("        needle: 15 percent", "        needle: 15 percent\n        k: 5")
    )
    result = staged.run()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(
        ["*gold/policies.yaml:11: candidates (3, set at gold/policies.yaml:5) is less than k (5)*"]
    )


def test_ranked_out_becoming_reranked_out_is_a_change_of_stage_not_a_regression(shop):
    shop.write("rerank.py", RERANK)
    gold = GOLD.replace("    reranker: rerank:no_restocking\n    candidates: 3\n", "")
    gold = gold.replace("question: restocking fee", "question: the refund window returns fee")
    shop.gold(gold)
    baseline = shop.path / "baseline.json"
    shop.run("--chunkrecall-baseline", str(baseline), "--chunkrecall-update-baseline")
    before = json.loads(baseline.read_text(encoding="utf-8"))
    assert (
        before["gold_files"]["gold/policies.yaml"]["cases"]["restocking"]["verdict"] == "ranked_out"
    )
    shop.gold(gold.replace("k: 1", "k: 1\n    reranker: rerank:no_restocking\n    candidates: 3"))
    result, report = shop.report("--chunkrecall-baseline", str(baseline), "-rx")
    assert result.ret == 0
    assert report["baseline"]["regressions"] == []
    assert report["baseline"]["stage_changes"] == ["gold/policies.yaml::restocking"]
    result.stdout.fnmatch_lines(
        [
            "*: 0 regressions, 0 improvements, 3 known misses, 0 new, 0 removed",
            "  stage changed gold/policies.yaml::restocking: ranked_out -> reranked_out (the "
            "first stage now finds it and the reranker drops it: not a regression)",
            '*reranker: (none) -> "rerank:no_restocking"*',
            "*known miss in baseline: ranked_out (now reranked_out: the first stage's candidates "
            "hold it and the reranker drops it, a change of stage, not a regression)*",
        ]
    )


def test_the_sweep_takes_candidates_as_a_setting(staged):
    # Reverse puts the last candidate first: with one candidate, BM25's own first is kept
    staged.gold(GOLD.replace("rerank:no_restocking", "rerank:Reverse"))
    result, report = staged.report("--chunkrecall-sweep", "candidates=1,7")
    rows = {row["label"]: row for row in report["sweep"]["rows"]}
    assert list(rows) == ["configured (candidates=3)", "candidates=1", "candidates=7"]
    assert rows["configured (candidates=3)"]["hits"] == report["totals"]["hits"] == 0
    assert rows["candidates=1"]["hits"] == 2  # refund-window and restocking, BM25's firsts
    result.stdout.fnmatch_lines(["chunkrecall sweep 'candidates=1,7':", "*candidates=1 * 2/4 *"])


def test_sweeping_candidates_without_a_reranker_is_a_usage_error(shop):
    shop.gold(GOLD.replace("    reranker: rerank:no_restocking\n", ""))
    result = shop.run("--chunkrecall-sweep", "candidates=5,10")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*candidates= sets how many chunks the retriever gives*"])


def test_markdown_junit_and_trec_carry_the_second_stage(staged, monkeypatch):
    import xml.etree.ElementTree as ET

    from pytest_chunkrecall.__main__ import main

    staged.report("--chunkrecall-markdown", "summary.md", "--junitxml=junit.xml")
    assert f"\n{FUNNEL}\n" in (staged.path / "summary.md").read_text(encoding="utf-8")
    properties = {
        case.get("name"): {p.get("name"): p.get("value") for p in case.iter("property")}
        for case in ET.parse(staged.path / "junit.xml").iter("testcase")
    }
    assert properties["restocking"]["verdict"] == "reranked_out"
    assert properties["restocking"]["candidate_rank"] == "1"
    assert properties["warranty"]["candidate_rank"] == ""
    monkeypatch.chdir(staged.path)
    assert main(["export", "trec", "chunkrecall.json", "--out", "trec"]) == 0
    qrels = (staged.path / "trec" / "qrels.txt").read_text(encoding="utf-8").splitlines()
    # the candidate that held it is relevant, though the reranker dropped it
    assert "gold/policies.yaml::restocking 0 docs/policies.md#5 1" in qrels


def test_merged_shards_have_the_funnel_of_the_one_run(staged, monkeypatch, capsys):
    from pytest_chunkrecall.__main__ import main

    _, single = staged.report()
    monkeypatch.chdir(staged.path)
    staged.run("-k", "refund or restocking", "--chunkrecall-report", "a.json")
    staged.run("-k", "not refund and not restocking", "--chunkrecall-report", "b.json")
    assert main(["merge", "a.json", "b.json", "--out", "merged.json"]) == 0
    merged = json.loads((staged.path / "merged.json").read_text(encoding="utf-8"))
    assert merged["totals"]["funnel"] == single["totals"]["funnel"]
    assert merged["gold_files"][0]["totals"]["funnel"] == single["totals"]["funnel"]
    staged.run("--chunkrecall-baseline", "base.json", "--chunkrecall-update-baseline")
    capsys.readouterr()
    assert main(["compare", "merged.json", "--baseline", "base.json"]) == 0
    assert FUNNEL in capsys.readouterr().out.splitlines()
