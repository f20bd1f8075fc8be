"""The context sweep benchmark: it skips without its data, and with it prints both sweeps."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]
SCRIPT = ROOT / "benchmarks" / "context_sweep.py"
CORPORA = ("chatlogs", "finance", "pubmed", "state_of_the_union", "wikitexts")


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, env=env, check=False
    )


def test_without_its_data_the_benchmark_says_so_and_succeeds(tmp_path: Path) -> None:
    finished = run("--data", str(tmp_path / "missing"))
    assert finished.returncode == 0
    assert "context_sweep: skipped, no data at" in finished.stdout


def test_on_a_small_data_set_it_prints_both_sweeps_and_their_choice(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "corpora").mkdir(parents=True)
    fact = "The refund window is 30 days from delivery."
    filler = "Unrelated words about shipping boxes and tape. " * 20
    with (data / "questions_df.csv").open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, ["question", "references", "corpus_id"])
        writer.writeheader()
        for corpus in CORPORA:
            (data / "corpora" / f"{corpus}.md").write_text(filler + fact + filler, "utf-8")
            references = json.dumps([{"content": fact}])
            row = {"question": "What is the refund window?", "references": references}
            writer.writerow({**row, "corpus_id": corpus})
    finished = run("--data", str(data), "--sizes", "100,400", "--budget", "400")
    assert finished.returncode == 0, finished.stdout + finished.stderr
    lines = finished.stdout.splitlines()
    assert "### k = 5 (`--chunkrecall-sweep 'size=100,400'`)" in lines
    assert (
        "### budget 400 chars, k = 5 (`--chunkrecall-sweep 'size=100,400; budget=400; k=5'`)"
        in (lines)
    )
    assert sum(line.startswith("least context among the best: ") for line in lines) == 2
