"""``export trec``: a JSON report as qrels and run files that an IR library scores as the report does."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from .import_support import command, files_under

ir_measures = pytest.importorskip("ir_measures")

# k = 3 for every case. Hand-computed from the cases below (9 evaluated, one skipped):
# hits at ranks 1, 3, 2, 1, 3 -> hit-rate 5/9; @1: 2/9, @2: 3/9, @3: 5/9;
# MRR = (1 + 1/3 + 1/2 + 1 + 1/3) / 9 = 0.351852.
CASES: list[dict[str, Any]] = [
    {"nodeid": "gold/faq.yaml::refund", "verdict": "hit", "rank": 1, "outcome": "passed",
     "retrieved_ids": ["docs/a.md#0", "docs/a.md#1", "docs/b.md#0"],
     "holding_ids": ["docs/a.md#0", "docs/b.md#3"]},
    {"nodeid": "gold/faq.yaml::express", "verdict": "hit", "rank": 3, "outcome": "passed",
     "retrieved_ids": ["docs/a.md#2", "docs/b.md#1", "docs/a.md#1"], "holding_ids": ["docs/a.md#1"]},
    {"nodeid": "gold/faq.yaml::warranty", "verdict": "ranked_out", "rank": None, "outcome": "failed",
     "retrieved_ids": ["docs/b.md#0", "docs/b.md#1", "docs/b.md#2"], "holding_ids": ["docs/a.md#5"]},
    {"nodeid": "gold/faq.yaml::customs", "verdict": "split", "rank": None, "outcome": "xfailed",
     "retrieved_ids": ["docs/a.md#3", "docs/a.md#4", "docs/b.md#2"], "holding_ids": []},
    {"nodeid": "gold/faq.yaml::typo", "verdict": "absent", "rank": None, "outcome": "failed",
     "retrieved_ids": ["docs/b.md#4", "docs/a.md#0", "docs/a.md#4"], "holding_ids": None},
    {"nodeid": "gold/faq.yaml::gift", "verdict": "hit", "rank": 2, "outcome": "passed",
     "retrieved_ids": ["docs/b.md#2", "docs/b.md#5", "docs/a.md#4"], "holding_ids": None},
    {"nodeid": "gold/faq.yaml::later", "verdict": None, "rank": None, "outcome": "skipped"},
    {"nodeid": "gold/my notes.yaml::opening hours", "verdict": "hit", "rank": 1, "outcome": "passed",
     "retrieved_ids": ["docs/my notes.md#0", "docs/a.md#0", "docs/b.md#0"],
     "holding_ids": ["docs/my notes.md#0"]},
    {"nodeid": "gold/faq.yaml::twice", "verdict": "hit", "rank": 3, "outcome": "passed",
     "retrieved_ids": ["docs/c.md#0", "docs/c.md#0", "docs/c.md#1"], "holding_ids": ["docs/c.md#1"]},
    {"nodeid": "gold/faq.yaml::silence", "verdict": "ranked_out", "rank": None, "outcome": "failed",
     "retrieved_ids": [], "holding_ids": ["docs/a.md#9"]},
]  # fmt: skip
TOTALS = {
    "cases": 9, "hits": 5, "hit_rate": 0.555556, "mrr": 0.351852,
    "hit_rate_at": {"1": 0.222222, "2": 0.333333, "3": 0.555556},
    "verdicts": {"hit": 5, "split": 1, "ranked_out": 2, "absent": 1},
}  # fmt: skip


def entry(case: dict[str, Any]) -> dict[str, Any]:
    """A whole report entry around the keys a case above gives."""
    gold_file, _, case_id = case["nodeid"].partition("::")
    every = {"gold_file": gold_file, "id": case_id, "line": 1, "span_split": None, "xfail": None}
    if case.get("verdict") is not None:
        every.update(question="q", needles=["n"], span=None, span_split=False, k=3)
        every.update(match="normalized", needle_lengths=[1], span_length=1, unit="characters")
        every.update(pieces_retrieved=None)
    return {**every, **case}


def report_file(path: Path, cases: list[dict[str, Any]] = CASES) -> Path:
    entries = [entry(case) for case in cases]
    gold_files = [{"path": path} for path in dict.fromkeys(e["gold_file"] for e in entries)]
    report = {"chunkrecall_report": 1, "totals": TOTALS, "gold_files": gold_files}
    path.write_text(json.dumps({**report, "cases": entries}, indent=1), "utf-8")
    return path


def test_an_ir_library_gets_the_reports_hit_rates_and_mrr_back(capsys, tmp_path):
    status, out, _ = command(
        capsys, "export", "trec", report_file(tmp_path / "r.json"), "--out", tmp_path / "trec"
    )
    assert status == 0, out
    assert (
        "export trec: 9 queries (2 with no holding chunk, marked no-holding-chunk); 1 case not evaluated left out"
        in out
    )
    qrels = list(ir_measures.read_trec_qrels(str(tmp_path / "trec" / "qrels.txt")))
    run = list(ir_measures.read_trec_run(str(tmp_path / "trec" / "run.txt")))
    measures = [ir_measures.RR, *(ir_measures.Success @ int(r) for r in TOTALS["hit_rate_at"])]
    scores = ir_measures.calc_aggregate(measures, qrels, run)
    assert scores[ir_measures.RR] == pytest.approx(TOTALS["mrr"], abs=1e-6)
    for r, rate in TOTALS["hit_rate_at"].items():
        assert scores[ir_measures.Success @ int(r)] == pytest.approx(rate, abs=1e-6)
    # per query too: a hit is success at its rank, and nothing sooner
    per_query = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.RR], qrels, run)}
    expected = {
        c["nodeid"].replace(" ", "%20"): 1 / c["rank"] if c["rank"] else 0.0
        for c in CASES
        if c["verdict"]
    }
    assert per_query == pytest.approx(expected)


def test_the_files_are_trec_lines(capsys, tmp_path):
    command(
        capsys,
        "export",
        "trec",
        report_file(tmp_path / "r.json"),
        "--out",
        tmp_path,
        "--tag",
        "bm25 800",
    )
    qrels = (tmp_path / "qrels.txt").read_text("utf-8").splitlines()
    run = (tmp_path / "run.txt").read_text("utf-8").splitlines()
    assert qrels[:3] == [
        "gold/faq.yaml::refund 0 docs/a.md#0 1",
        "gold/faq.yaml::refund 0 docs/b.md#3 1",
        "gold/faq.yaml::express 0 docs/a.md#1 1",
    ]
    assert "gold/faq.yaml::customs 0 no-holding-chunk 1" in qrels
    assert "gold/faq.yaml::gift 0 docs/b.md#5 1" in qrels  # holding unknown: the hit's own chunk
    assert "gold/my%20notes.yaml::opening%20hours 0 docs/my%20notes.md#0 1" in qrels
    assert run[:3] == [
        "gold/faq.yaml::refund Q0 docs/a.md#0 1 3 bm25%20800",
        "gold/faq.yaml::refund Q0 docs/a.md#1 2 2 bm25%20800",
        "gold/faq.yaml::refund Q0 docs/b.md#0 3 1 bm25%20800",
    ]
    assert "gold/faq.yaml::twice Q0 docs/c.md#0~2 2 2 bm25%20800" in run
    assert "gold/faq.yaml::silence Q0 nothing-retrieved 1 1 bm25%20800" in run
    assert not any("::later" in line for line in qrels + run)
    assert all(len(line.split()) == 4 for line in qrels) and all(
        len(line.split()) == 6 for line in run
    )


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('{"chunkrecall_report": 1,\n "cases": [\n', "r.json is not valid JSON (line 3, column 1"),
        ('{"cases": []}', "r.json is not a chunkrecall report (it has no 'chunkrecall_report' key)"),
        (
            json.dumps({"chunkrecall_report": 1, "gold_files": [{"path": "gold/a.yaml"}], "cases": [
                entry({"nodeid": "gold/a.yaml::x", "verdict": "hit", "rank": 1, "outcome": "passed"})]}),
            "r.json: case 1 (gold/a.yaml::x): this case has no 'retrieved_ids'",
        ),
        (
            json.dumps({"chunkrecall_report": 1, "gold_files": [{"path": "gold/a.yaml"}], "cases": [
                entry({"nodeid": "gold/a.yaml::x", "verdict": "hit", "rank": 1, "outcome": "passed",
                       "retrieved_ids": [3]})]}),
            "r.json is damaged: case 1 (gold/a.yaml::x): 'retrieved_ids' is [3]; it must be a list",
        ),
    ],
)  # fmt: skip
def test_a_bad_report_is_one_line_and_nothing_is_written(
    capsys, tmp_path, monkeypatch, content, expected
):
    monkeypatch.chdir(tmp_path)
    Path("r.json").write_text(content, encoding="utf-8")
    status, out, err = command(capsys, "export", "trec", "r.json", "--out", "trec")
    assert status == 2
    assert err.startswith(f"error: {expected}"), err
    assert "Traceback" not in out + err
    assert files_under(tmp_path / "trec") == []


def test_existing_files_are_kept_without_force(capsys, tmp_path):
    (tmp_path / "run.txt").write_text("mine\n", encoding="utf-8")
    status, _, err = command(
        capsys, "export", "trec", report_file(tmp_path / "r.json"), "--out", tmp_path
    )
    assert status == 2 and "would overwrite" in err
    assert (tmp_path / "run.txt").read_text("utf-8") == "mine\n"
    assert not (tmp_path / "qrels.txt").exists()


THREE_HOLDERS = "Returns. The refund window is 30 days from delivery.\n"


def test_recall_and_ndcg_from_the_export_count_every_chunk_that_holds_the_span(shop, capsys):
    # Three documents say it, one chunk each; the retriever brings back two of them.
    for name in ("a", "b", "c"):
        shop.write(f"docs/faq/{name}.md", THREE_HOLDERS)
    shop.write("docs/faq/d.md", "Gift cards never expire and can be used online.\n")
    shop.gold(
        """
        corpus: ../docs/faq/*.md
        chunker_args: {size: 200, overlap: 0}
        retriever: rag:keywords
        retriever_args: {rankings: {refund window: [0, 3, 2]}}
        k: 3
        cases:
          - id: refund
            question: refund window
            needle: 30 days
            span: refund window is 30 days
        """
    )
    result, report = shop.report()
    result.assert_outcomes(passed=1)
    (case,) = report["cases"]
    assert case["holding_ids"] == ["docs/faq/a.md#0", "docs/faq/b.md#1", "docs/faq/c.md#2"]
    out = shop.path / "trec"
    status, printed, _ = command(
        capsys, "export", "trec", shop.path / "chunkrecall.json", "--out", out
    )
    assert status == 0, printed
    qrels = list(ir_measures.read_trec_qrels(str(out / "qrels.txt")))
    run = list(ir_measures.read_trec_run(str(out / "run.txt")))
    recall, ndcg = ir_measures.R @ 3, ir_measures.nDCG @ 3
    scores = ir_measures.calc_aggregate([recall, ndcg], qrels, run)
    # relevant at ranks 1 and 3 of 3 holders: recall 2/3;
    # nDCG = (1 + 1/log2 4) / (1 + 1/log2 3 + 1/log2 4)
    assert scores[recall] == pytest.approx(2 / 3)
    assert scores[ndcg] == pytest.approx(1.5 / (1.5 + 1 / math.log2(3)))
