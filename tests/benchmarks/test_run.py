"""The benchmark command runs from a checkout and prints its table; it asserts no timing."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]


@pytest.mark.slow
def test_the_quick_benchmarks_print_their_table_and_build_once():
    finished = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "run.py"),
            "--quick",
            "--only",
            "build",
            "--only",
            "geometry",
        ],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
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
    # Each count of spans was timed in its own process, every case of its gold file evaluated.
    assert "100 vs 1,000 spans, each count in a fresh process" in rows["geometry scaling"]
    assert re.search(r"then 100 spans [\d.]+ s \(\d+ cut\), 1,000 spans", rows["geometry scaling"])


@pytest.mark.slow
def test_the_quick_scale_rows_run_through_the_plugin():
    finished = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "run.py"),
            "--quick",
            "--only",
            "common",
            "--only",
            "concurrency",
        ],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert finished.returncode == 0, finished.stdout + finished.stderr
    rows = {
        line.split("|")[1].strip(): line.split("|")[2].strip()
        for line in finished.stdout.splitlines()
        if line.startswith("| ") and not line.startswith("| measure")
    }
    assert set(rows) == {
        "common needles, time",
        "common needles, growth",
        "common needles, memory",
        "concurrency",
    }
    assert rows["common needles, time"].startswith("1,000 cases; 2.0 MB of random words")
    assert rows["common needles, growth"].startswith("100 vs 1,000 cases, the first a prefix")
    assert rows["concurrency"] == "100 cases, retriever sleeps 20 ms a call, median of 1"
    # The same cases, checked the same way on both sides: as many failures each.
    [results] = [
        line.split("|")[3]
        for line in finished.stdout.splitlines()
        if line.startswith("| common needles, time |")
    ]
    failed = re.search(r"failed: plugin ([\d,]+), by hand ([\d,]+)", results)
    assert failed is not None and failed.group(1) == failed.group(2), results
    # Growth is measured on both sides: the hand-written test over the same two counts.
    [growth] = [
        line.split("|")[3]
        for line in finished.stdout.splitlines()
        if line.startswith("| common needles, growth |")
    ]
    assert re.search(r"by hand [\d.]+ s and [\d.]+ s = [\d.]+x$", growth.strip()), growth


@pytest.mark.slow
def test_the_failure_row_times_each_count_under_each_traceback_style(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import failures
    import measure

    sizes = dataclasses.replace(measure.QUICK, failures=(2, 5))
    row = failures.failures(tmp_path, sizes)
    assert row.setting == "plain failing tests, no plugin, 2, 5 failures, one run each"
    for count in (2, 5):
        assert re.search(
            rf"{count}: `--tb=auto` [\d.]+ s, `--tb=line` [\d.]+ s, `--tb=no` [\d.]+ s", row.result
        ), row.result
    module = (tmp_path / "failures-5" / "test_fails.py").read_text(encoding="utf-8")
    assert "range(5)" in module


@pytest.mark.slow
def test_the_known_miss_row_runs_both_sides_to_the_same_expected_failures(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import measure
    import scale

    sizes = dataclasses.replace(measure.QUICK, overhead_cases=20, repeats=1)
    row = scale.known_misses(tmp_path, sizes)  # it stops unless both sides xfail as many
    baseline = json.loads((tmp_path / "known" / "baseline.json").read_text(encoding="utf-8"))
    (gold_file,) = baseline["gold_files"].values()
    known = [case for case in gold_file["cases"].values() if case["verdict"] != "hit"]
    assert len(known) >= 10  # every second question asks for nothing the index knows
    assert {case["verdict"] for case in known} == {"ranked_out"}
    assert (
        row.setting == f"20 cases, {len(known)} of them known misses in the baseline, median of 1"
    )
    assert re.fullmatch(r"plugin [\d.]+ s / by hand [\d.]+ s = \*\*[\d.]+x\*\*", row.result)


@pytest.mark.slow
def test_the_quick_rows_of_reports_misses_and_many_cases_run_beside_the_hand_written_test():
    finished = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "run.py"),
            "--quick",
            "--only",
            "report-overhead",
            "--only",
            "misses",
            "--only",
            "hundred-thousand",
        ],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert finished.returncode == 0, finished.stdout + finished.stderr
    rows = [
        (line.split("|")[1].strip(), line.split("|")[2].strip(), line.split("|")[3].strip())
        for line in finished.stdout.splitlines()
        if line.startswith("| ") and not line.startswith("| measure")
    ]
    assert [measure for measure, _, _ in rows] == [
        "overhead, JSON report",
        "mostly misses, time",
        "mostly misses, memory",
        "mostly misses, time",
        "mostly misses, memory",
        "mostly misses, time, the same deeper retrieval by hand",
        "5,000 cases, time",
        "5,000 cases, memory",
    ]
    assert "`--chunkrecall-report`" in rows[0][1]
    # both sides fail the same cases, and most of them: the retriever ranks the holder last
    misses = re.search(r"1,000 cases, ([\d,]+) of them misses \(by hand: ([\d,]+)\)", rows[1][1])
    assert misses and misses.group(1) == misses.group(2)
    assert int(misses.group(1).replace(",", "")) > 900
    assert rows[3][1].startswith("`chunkrecall_depth = 0`")
    assert "asks the retriever 50 deep on a miss too" in rows[5][1]
    assert re.search(r"failed: plugin (\d+), by hand \1\)", rows[6][2])
