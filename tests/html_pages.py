"""Page data from real runs: the example project and Chroma's pubmed corpus, run through pytest.

The report comes from the plugin as a user runs it (``--chunkrecall-report``); the
documents are read from the corpus and chunked here with the same chunker, and checked
against the chunks the report names, so a drift between the two fails loudly.
"""

from __future__ import annotations

import csv
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypedDict

import yaml

from pytest_chunkrecall.baseline.decision import GateOutcome
from pytest_chunkrecall.chunkers import fixed_size
from pytest_chunkrecall.render.html import ChunkWindow, DocumentData, PageData
from pytest_chunkrecall.render.summary import Summary, SummaryContext, summarise
from pytest_chunkrecall.run.fold import RunFold
from pytest_chunkrecall.run.merge import gather

from .conftest import QUIET

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "example_project"
SHARED_DATA = ROOT.parent / "shared" / "data" / "chunking_evaluation"
PUBMED_ARGS = {"size": 800, "overlap": 200}
# the runs are made by module-scoped fixtures, before _quiet_inner_runs sets PYTEST_ADDOPTS
OPTIONS = ("-p", "no:cacheprovider", "-p", "no:randomly", *QUIET)


def run_report(project: Path, *args: str) -> dict[str, Any]:
    """Run pytest in ``project`` with ``--chunkrecall-report`` and return the report."""
    path = project / "report.json"
    command = [
        sys.executable,
        "-m",
        "pytest",
        *OPTIONS,
        "-q",
        "--chunkrecall-report",
        str(path),
        *args,
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        command, cwd=project, env=env, capture_output=True, text=True, timeout=600
    )
    assert path.exists(), done.stdout[-3000:] + done.stderr[-3000:]
    report: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return report


class Run(TypedDict):
    """A run as a page is drawn of it: its JSON report, and its documents chunked here."""

    report: dict[str, Any]
    documents: list[DocumentData]


def example_page(workdir: Path, *args: str) -> Run:
    """The example project's run, with its articles chunked by its own chunker."""
    project = workdir / "example_project"
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns("tests", "__pycache__"))
    report = run_report(project, "gold", *args)
    sys.path.insert(0, str(project))
    try:
        chunk = importlib.import_module("shopkb.ingest").chunk
    finally:
        sys.path.remove(str(project))
    texts = {
        f"docs/{path.name}": path.read_text(encoding="utf-8")
        for path in sorted((project / "docs").glob("*.md"))
    }
    documents = chunked(texts, lambda text: [(p.start_index, p.end_index) for p in chunk(text)])
    check_against(report, documents)
    for case in report["cases"]:
        if case.get("span_at") is None:
            case["span_at"] = locate(case, texts)
    return {"report": report, "documents": documents}


def pubmed_page(workdir: Path) -> Run:
    """Chroma's pubmed corpus (0.5 MB) with one case per question and one per excerpt."""
    project = workdir / "pubmed"
    (project / "gold").mkdir(parents=True)
    (project / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    text = (SHARED_DATA / "corpora" / "pubmed.md").read_text(encoding="utf-8")
    (project / "pubmed.md").write_text(text, encoding="utf-8")
    questions, offsets = [], {}
    with (SHARED_DATA / "questions_df.csv").open(encoding="utf-8", newline="") as handle:
        rows = [row for row in csv.DictReader(handle) if row["corpus_id"] == "pubmed"]
    excerpts = []
    for number, row in enumerate(rows, start=1):
        references = json.loads(row["references"])
        questions.append(
            {
                "id": f"q{number:03d}",
                "question": row["question"],
                "needles": [r["content"] for r in references],
            }
        )
        for part, ref in enumerate(references, start=1):
            case_id = f"q{number:03d}-{part}"
            excerpts.append({"id": case_id, "question": row["question"], "needle": ref["content"]})
            offsets[f"gold/excerpts.yaml::{case_id}"] = (ref["start_index"], ref["end_index"])
    for name, cases in (("questions", questions), ("excerpts", excerpts)):
        gold = {"corpus": "../pubmed.md", "chunker_args": PUBMED_ARGS, "k": 5, "cases": cases}
        (project / "gold" / f"{name}.yaml").write_text(
            yaml.safe_dump(gold, allow_unicode=True), "utf-8"
        )
    report = run_report(project, "gold")
    stride = PUBMED_ARGS["size"] - PUBMED_ARGS["overlap"]
    documents = chunked(
        {"pubmed.md": text},
        lambda t: [
            (n * stride, n * stride + len(c)) for n, c in enumerate(fixed_size(t, **PUBMED_ARGS))
        ],
    )
    check_against(report, documents)
    for case in report["cases"]:
        if case.get("span_at") is None and case["nodeid"] in offsets:
            start, end = offsets[case["nodeid"]]
            case["span_at"] = {"doc": "pubmed.md", "start": start, "end": end}
    return {"report": report, "documents": documents}


def summary_of(report: Mapping[str, Any], outcome: GateOutcome | None = None) -> Summary:
    """The summary of the run that wrote ``report``, folded from it as ``compare`` does."""
    fold, spool = gather(
        [("report", report)],
        fold=lambda shard: RunFold(sweep_spec=shard.sweep_spec, setup_args=shard.setup_args),
    )
    spool.close()
    return summarise(fold.finish(), outcome or GateOutcome(), SummaryContext())


def page_of(run: Run, outcome: GateOutcome | None = None) -> PageData:
    """The page of ``run``: the summary folded from its report, its cases and documents."""
    return {
        "summary": summary_of(run["report"], outcome),
        "cases": list(run["report"]["cases"]),
        "documents": run["documents"],
    }


def chunked(
    texts: Mapping[str, str], windows: Callable[[str], Sequence[tuple[int, int]]]
) -> list[DocumentData]:
    """Documents in corpus order, their chunks numbered across the corpus as the plugin does."""
    documents: list[DocumentData] = []
    index = 0
    for doc_id, text in texts.items():
        chunks: list[ChunkWindow] = []
        for start, end in windows(text):
            chunks.append({"index": index, "start": start, "end": end})
            index += 1
        documents.append({"id": doc_id, "text": text, "chunks": chunks})
    return documents


def check_against(report: Mapping[str, Any], documents: Sequence[DocumentData]) -> None:
    """Every chunk the report names is the chunk of that index and offsets in ``documents``."""
    known = {(d["id"], c["index"]): (c["start"], c["end"]) for d in documents for c in d["chunks"]}
    named = [chunk for case in report["cases"] for chunk in case.get("top") or []]
    assert named, "the report names no chunk"
    for chunk in named:
        assert known[(chunk["doc"], chunk["index"])] == (chunk["start"], chunk["end"]), chunk


def locate(case: Mapping[str, Any], texts: Mapping[str, str]) -> dict[str, Any] | None:
    """Where the case's span is, in the chunk that holds it or across its cut (for old reports)."""
    span, needles = case.get("span"), case.get("needles") or []
    if span is None and len(needles) != 1:
        return None
    fromto = re.fullmatch(r"from '(.*)' to '(.*)'", span or "")
    if fromto:
        pattern = _words(fromto.group(1)) + r"[\s\S]*?" + _words(fromto.group(2))
    else:
        pattern = _words(span if span is not None else needles[0])
    cut = case.get("cut")
    near = [
        (c["doc"], c["start"], c["end"])
        for c in case.get("top") or []
        if c["rank"] == case.get("rank")
    ]
    near += [
        (h["chunk"]["doc"], h["chunk"]["start"], h["chunk"]["end"]) for h in case.get("held") or []
    ]
    for doc, low, high in near:
        for found in re.finditer(pattern, texts.get(doc, ""), flags=re.IGNORECASE):
            if low <= found.start() and found.end() <= high:
                return {"doc": doc, "start": found.start(), "end": found.end()}
    if cut:  # a split span is in no chunk: the occurrence is the one the cut falls in
        for found in re.finditer(pattern, texts.get(cut["doc"], ""), flags=re.IGNORECASE):
            if found.start() < cut["offset"] < found.end():
                return {"doc": cut["doc"], "start": found.start(), "end": found.end()}
    return None


def _words(text: str) -> str:
    return r"\s+".join(re.escape(word) for word in text.split())
