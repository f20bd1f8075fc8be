"""The chunking-evaluation benchmark: it skips without its data, and its split counts are right."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
SCRIPT = ROOT / "benchmarks" / "chunking_evaluation.py"
DATA = ROOT.parent / "shared" / "data" / "chunking_evaluation"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, env=env, check=False
    )


def test_without_its_data_the_benchmark_says_so_and_succeeds(tmp_path):
    finished = run("--data", str(tmp_path / "missing"))
    assert finished.returncode == 0
    assert "chunking_evaluation: skipped, no data at" in finished.stdout


@pytest.mark.slow
def test_split_counts_agree_with_a_literal_scan_of_the_windows(tmp_path):
    if not (DATA / "questions_df.csv").is_file():
        pytest.skip(f"no chunking_evaluation data at {DATA}")
    corpus = "state_of_the_union"
    finished = run("--corpus", corpus, "--keep", str(tmp_path))
    assert finished.returncode == 0, finished.stdout + finished.stderr
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))

    # fixed_size 800/200: windows start every 600 chars; an excerpt is whole
    # when one window covers one of its occurrences.
    text = (DATA / "corpora" / f"{corpus}.md").read_text(encoding="utf-8")
    windows = [(start, start + 800) for start in range(0, len(text), 600)]
    expected = set()
    with (DATA / "questions_df.csv").open(encoding="utf-8", newline="") as handle:
        rows = [row for row in csv.DictReader(handle) if row["corpus_id"] == corpus]
    for number, row in enumerate(rows, start=1):
        for part, reference in enumerate(json.loads(row["references"]), start=1):
            excerpt = reference["content"]
            starts = [i for i in range(len(text)) if text.startswith(excerpt, i)]
            if not any(s <= a and a + len(excerpt) <= e for a in starts for s, e in windows):
                expected.add(f"q{number:03d}-{part}")
    split = {
        case["id"]
        for case in report["cases"]
        if case["gold_file"] == f"gold/{corpus}--fixed_size--excerpt.yaml" and case["span_split"]
    }
    assert expected  # some excerpts do cross every window that could hold them
    assert split == expected
