"""The example project's gold set under BM25 and under dense retrieval, as its README reports it.

Each run is a real ``pytest`` in a fresh interpreter, in a copy of
example_project/, with the commands the README gives; the numbers the README
shows are checked against what those runs print and report.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest
from filelock import FileLock

from .conftest import QUIET

# Checked without importing: wordllama configures the root logger on import,
# and only the runs below need it.
pytestmark = pytest.mark.skipif(
    find_spec("wordllama") is None,
    reason="the dense example needs wordllama (pip install -e '.[integration]')",
)

EXAMPLE = Path(__file__).parents[1] / "example_project"
README = (EXAMPLE / "README.md").read_text(encoding="utf-8")
# The README's prose with its line breaks undone, for phrases that wrap.
PROSE = " ".join(README.split())
DENSE = "chunkrecall_retriever=shopkb.dense:build"
ONE_STAGE = ("-o", "chunkrecall_reranker=")  # the retrievers compared alone, without the reranker
COMMANDS = {
    "BM25": ("gold", "--runxfail", "--chunkrecall-report", "bm25.json", *ONE_STAGE),
    "dense": ("gold", "--runxfail", "--chunkrecall-report", "dense.json", "-o", DENSE, *ONE_STAGE),
}
SUMMARIES = {
    "BM25": [
        "chunkrecall: hit-rate 61/64 (95.3%) [95% CI 87.1-98.4%], split spans 1",
        "verdicts: hit 61, split 1, ranked_out 2, absent 0",
    ],
    "dense": [
        "chunkrecall: hit-rate 59/64 (92.2%) [95% CI 83.0-96.6%], split spans 1",
        "verdicts: hit 59, split 1, ranked_out 4, absent 0",
    ],
}
TABLE_NAMES = {"BM25": "BM25, `shopkb.search:build`", "dense": "dense, `shopkb.dense:build`"}


@dataclass(frozen=True)
class Run:
    """What one ``pytest`` run in the example printed, returned and reported."""

    status: int
    stdout: str
    report: dict[str, Any]

    def line(self, start: str) -> str:
        return next(line for line in self.stdout.splitlines() if line.startswith(start))

    @property
    def outcomes(self) -> Counter[str]:
        return Counter(case["outcome"] for case in self.report["cases"])

    def case(self, case_id: str) -> dict[str, Any]:
        return next(case for case in self.report["cases"] if case["id"] == case_id)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., Run]:
    """``run(*args)``: pytest in a copy of the example project, each distinct run once a session.

    Under xdist the workers share the runs: the first to need one makes it, under a lock,
    in a folder of the session's temporary root; the others read what it wrote.
    """
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the session's root, above each worker's own
    runs = root / "example-runs"
    runs.mkdir(exist_ok=True)

    def make(*args: str) -> Run:
        if "--chunkrecall-report" not in args:
            args = (*args, "--chunkrecall-report", "report.json")
        key = hashlib.sha256("\0".join(args).encode()).hexdigest()[:16]
        saved = runs / f"{key}.json"
        with FileLock(runs / f"{key}.lock"):
            if not saved.exists():
                saved.write_text(json.dumps(_run_example(runs / key, args)), encoding="utf-8")
        done = json.loads(saved.read_text(encoding="utf-8"))
        return Run(done["status"], done["stdout"], done["report"])

    return make


def _run_example(folder: Path, args: tuple[str, ...]) -> dict[str, Any]:
    """pytest with ``args`` in a fresh copy of the example project: status, stdout, report."""
    project = folder / "example_project"
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns("__pycache__", ".*"))
    report = project / args[args.index("--chunkrecall-report") + 1]
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *QUIET, *args],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert report.exists(), result.stdout + result.stderr
    data = json.loads(report.read_text(encoding="utf-8"))
    return {"status": result.returncode, "stdout": result.stdout, "report": data}


@pytest.mark.parametrize("retriever", list(COMMANDS))
def test_the_readme_commands_print_the_readme_summary(
    run: Callable[..., Run], retriever: str
) -> None:
    args = COMMANDS[retriever]
    assert f"$ pytest {' '.join(args)}\n" in README
    result = run(*args)
    summary = [result.line("chunkrecall: hit-rate"), result.line("verdicts:")]
    assert summary == SUMMARIES[retriever]
    assert "\n".join(summary) in README
    # Every miss fails and every hit passes: a measurement, exit status 1.
    totals = result.report["totals"]
    assert result.outcomes == {"passed": totals["hits"], "failed": 64 - totals["hits"]}
    assert result.status == 1
    assert f"{64 - totals['hits']} failed and {totals['hits']} passed" in PROSE


def test_the_runs_differ_only_in_the_retriever(run: Callable[..., Run]) -> None:
    bm25, dense = run(*COMMANDS["BM25"]), run(*COMMANDS["dense"])
    assert "retriever shopkb.search:build, k=3" in bm25.stdout
    assert "retriever shopkb.dense:build, k=3" in dense.stdout
    setups = [
        [
            {key: value for key, value in gold.items() if key not in ("retriever", "totals")}
            for gold in seen.report["gold_files"]
        ]
        for seen in (bm25, dense)
    ]
    assert setups[0] == setups[1]
    # Whether a span is whole in some chunk is the chunker's doing: the same, case by case.
    split = [{c["nodeid"]: c["span_split"] for c in seen.report["cases"]} for seen in (bm25, dense)]
    assert split[0] == split[1]
    assert sum(split[0].values()) == 1


def test_without_runxfail_the_ceiling_dense_answers_fails_as_xpass(run: Callable[..., Run]) -> None:
    result = run("gold", "-o", DENSE, *ONE_STAGE)
    assert result.outcomes == {"passed": 58, "failed": 4, "xfailed": 2}
    ceiling = result.case("order-number-format")
    assert (ceiling["verdict"], ceiling["outcome"]) == ("hit", "failed")
    assert "[XPASS(strict)] reranked_out:" in result.stdout
    assert "reports 4 failed, 58 passed, 2 xfailed" in PROSE


@pytest.mark.parametrize("k", [3, 5])
@pytest.mark.parametrize("retriever", list(COMMANDS))
def test_the_side_by_side_table(run: Callable[..., Run], retriever: str, k: int) -> None:
    args = COMMANDS[retriever] if k == 3 else (*COMMANDS[retriever], "--chunkrecall-k", str(k))
    totals = run(*args).report["totals"]
    verdicts = totals["verdicts"]
    row = (
        f"| {TABLE_NAMES[retriever]} | {k} | {totals['hits']}/{totals['cases']} "
        f"({totals['hit_rate']:.1%}) | {verdicts['hit']} | {verdicts['split']} | "
        f"{verdicts['ranked_out']} | {verdicts['absent']} | {totals['split_spans']} |"
    )
    assert row in README


def test_the_rank_table(run: Callable[..., Run]) -> None:
    missed = {
        case["id"]
        for args in COMMANDS.values()
        for case in run(*args).report["cases"]
        if case["verdict"] != "hit"
    }
    deep = {
        retriever: {
            case["id"]: case for case in run(*args, "--chunkrecall-k", "10").report["cases"]
        }
        for retriever, args in COMMANDS.items()
    }
    section = README[README.index("## BM25 and dense side by side") :]
    rows = re.findall(r"^\| `([\w-]+)`[^|]* \| ([^|]+) \| ([^|]+) \|$", section, re.MULTILINE)
    assert sorted(case_id for case_id, *_ in rows) == sorted(missed)
    for case_id, *cells in rows:
        for retriever, cell in zip(COMMANDS, cells, strict=True):
            case = deep[retriever][case_id]
            shown = {"hit": f"rank {case['rank']}", "ranked_out": "not in the top 10"}
            assert cell.strip("* ") == shown.get(case["verdict"], case["verdict"]), (
                case_id,
                retriever,
            )


@pytest.mark.slow
def test_xdist_gives_the_same_dense_run(run: Callable[..., Run]) -> None:
    pytest.importorskip("xdist", reason="needs pytest-xdist (the test extra)")
    serial = run(*COMMANDS["dense"])
    parallel = run(*COMMANDS["dense"][:2], "-n", "2", *COMMANDS["dense"][4:])
    assert parallel.line("chunkrecall: hit-rate") == serial.line("chunkrecall: hit-rate")
    assert parallel.line("verdicts:") == serial.line("verdicts:")
    assert parallel.report["totals"] == serial.report["totals"]
    assert {c["nodeid"]: (c["verdict"], c["rank"]) for c in parallel.report["cases"]} == {
        c["nodeid"]: (c["verdict"], c["rank"]) for c in serial.report["cases"]
    }
