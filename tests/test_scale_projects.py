"""Real projects give the same verdicts in batches, with calls in flight and under two workers.

The example project (its own BM25) and the chunking-evaluation data imported
as a project (the built-in BM25), each run in a fresh pytest process: one
question at a time, then batched with several calls in flight, then with
``-n 2`` on top. Every case's verdict, rank and outcome must be the same.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .conftest import QUIET
from .import_support import command

pytest.importorskip("xdist")
pytestmark = pytest.mark.slow

ROOT = Path(__file__).parents[1]
EXAMPLE = ROOT / "example_project"

# The project's retriever, offering search_batch: the same answers, asked in batches.
BATCHED = """
from importlib import import_module


def build(chunks, factory, **args):
    module, _, name = factory.partition(":")
    search = getattr(import_module(module), name)(chunks, **args)
    search = getattr(search, "search", search)

    class Batched:
        def search(self, question, k):
            return search(question, k)

        def search_batch(self, questions, k):
            return [search(question, k) for question in questions]

    return Batched()
"""

WAYS = {
    "serial": (),
    "batched, 4 in flight": (
        "-o", "chunkrecall_batch_size=8", "-o", "chunkrecall_concurrency=4",
    ),
    "-n 2, batched, 2 in flight": (
        "-n", "2", "-o", "chunkrecall_batch_size=8", "-o", "chunkrecall_concurrency=2",
    ),
}  # fmt: skip


def pytest_in(project: Path, *args: str) -> dict[str, Any]:
    """A fresh pytest in ``project``; its JSON report."""
    report = project / "r.json"
    report.unlink(missing_ok=True)
    path = os.pathsep.join([str(ROOT), str(project), os.environ.get("PYTHONPATH", "")])
    finished = subprocess.run(
        [sys.executable, "-m", "pytest", *QUIET, "-p", "no:cacheprovider", "-p", "no:randomly",
         "--chunkrecall-report", str(report), *args],
        cwd=project, env={**os.environ, "PYTHONPATH": path, "PYTEST_ADDOPTS": ""},
        capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert report.exists(), finished.stdout[-3000:] + finished.stderr[-3000:]
    data: dict[str, Any] = json.loads(report.read_text(encoding="utf-8"))
    return data


def same_verdicts_every_way(project: Path, factory: str, *targets: str) -> dict[str, Any]:
    (project / "batched.py").write_text(BATCHED, encoding="utf-8")
    retriever = ("-o", "chunkrecall_retriever=batched:build", "-o",
                 f"chunkrecall_retriever_args={json.dumps({'factory': factory})}")  # fmt: skip
    reports = {
        way: pytest_in(project, *targets, *(retriever if args else ()), *args)
        for way, args in WAYS.items()
    }
    seen = {
        way: {c["nodeid"]: (c["verdict"], c["rank"], c["outcome"]) for c in report["cases"]}
        for way, report in reports.items()
    }
    for way in WAYS:
        assert seen[way] == seen["serial"], way
        assert reports[way]["totals"] == reports["serial"]["totals"], way
    return reports["serial"]


def test_the_example_project_gives_the_same_verdicts_every_way(tmp_path):
    project = tmp_path / "example"
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns("__pycache__", "*.json"))
    serial = same_verdicts_every_way(project, "shopkb.search:build", "gold", "--runxfail")
    assert serial["totals"]["cases"] == 64


def test_the_chunking_evaluation_data_gives_the_same_verdicts_every_way(
    capsys, chunking_evaluation, tmp_path
):
    project = tmp_path / "project"
    command(
        capsys, "import", "chunking-evaluation", chunking_evaluation / "questions_df.csv",
        "--corpora", chunking_evaluation / "corpora", "--out", project,
    )  # fmt: skip
    serial = same_verdicts_every_way(project, "pytest_chunkrecall.retrievers:bm25")
    assert serial["totals"]["cases"] == 790
