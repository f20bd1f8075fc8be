"""The benchmark command runs from a checkout and prints its table; it asserts no timing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]


def test_the_quick_benchmarks_print_their_table_and_build_once():
    finished = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "run.py"), "--quick",
         "--only", "build", "--only", "geometry"],
        capture_output=True, text=True, check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert finished.returncode == 0, finished.stdout + finished.stderr
    rows = {
        line.split("|")[1].strip(): line
        for line in finished.stdout.splitlines()
        if line.startswith("| ") and not line.startswith("| measure")
    }
    assert set(rows) == {"build once", "geometry scaling"}
    # Counted calls, not times: each process chunked the corpus and built the retriever once.
    assert "`-n 0`: corpus chunked 1x, factory called 1x, in 1 process;" in rows["build once"]
    assert rows["build once"].endswith("| yes |")


@pytest.mark.slow
def test_the_quick_scale_rows_run_through_the_plugin():
    finished = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "run.py"), "--quick",
         "--only", "common", "--only", "concurrency"],
        capture_output=True, text=True, check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert finished.returncode == 0, finished.stdout + finished.stderr
    rows = {
        line.split("|")[1].strip(): line.split("|")[2].strip()
        for line in finished.stdout.splitlines()
        if line.startswith("| ") and not line.startswith("| measure")
    }
    assert set(rows) == {"common needles", "concurrency"}
    assert rows["common needles"].startswith("2.0 MB of random words (vocabulary 5,000)")
    assert rows["common needles"].endswith("100 vs 1,000 cases")
    assert rows["concurrency"] == "100 cases, retriever sleeps 20 ms a call, median of 1"
