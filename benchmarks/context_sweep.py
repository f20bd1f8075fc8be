"""What the answer cost: chunk sizes swept at the same k, then at an equal context budget.

On the five corpora of Chroma's chunking-evaluation data, with the built-in BM25, one
gold file per corpus: one case per reference excerpt, whose needle is the excerpt's
sentence that shares most words with the question (the fact the reader needs). The
built-in ``fixed_size`` chunker (overlap 0) is swept over four sizes twice through
``--chunkrecall-sweep``: at k = 5, where a larger chunk holds more and so wins recall
while the reader reads more, and at an equal budget of context, where every size may
read the same number of characters (k is raised so that the smallest chunks can fill
the budget: k still bounds the retrieval). Each run prints the sweep's table (hit rate,
mean context per case and to the answer) and the setting the sweep names.

The data is read from ``../shared/data/chunking_evaluation`` (next to the repository),
``CHUNKRECALL_BENCH_DATA`` or ``--data``; without it the benchmark says so and exits 0.

    python benchmarks/context_sweep.py
    python benchmarks/context_sweep.py --sizes 200,400,800,1600 --k 5 --budget 2000 -n 2
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from chunking_evaluation import DATA, ROOT, answer_sentence, read_questions

CORPORA = ("chatlogs", "finance", "pubmed", "state_of_the_union", "wikitexts")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help="the chunking_evaluation folder")
    parser.add_argument("--sizes", default="200,400,800,1600", help="chunk sizes, in characters")
    parser.add_argument("--k", type=int, default=5, help="top k asked for (default: 5)")
    parser.add_argument("--budget", type=int, default=2000, help="the equal budget, in characters")
    parser.add_argument("-n", "--workers", default="0", help="pytest-xdist workers (default: 0)")
    parser.add_argument("--keep", type=Path, help="write the project here and keep it")
    options = parser.parse_args(argv)
    if not (options.data / "questions_df.csv").is_file():
        print(f"context_sweep: skipped, no data at {options.data}")
        return 0
    if options.keep:
        options.keep.mkdir(parents=True, exist_ok=True)
        return run(options, options.keep)
    with tempfile.TemporaryDirectory(prefix="context-sweep-") as folder:
        return run(options, Path(folder))


def run(options: argparse.Namespace, project: Path) -> int:
    sizes = [int(size) for size in options.sizes.split(",")]
    write_project(options.data, project, k=options.k, configured=sizes[0])
    # at an equal budget, k must let the smallest chunks fill it: k still bounds the retrieval
    deep = max(options.k, -(-options.budget // min(sizes)))
    sweeps = {
        f"k = {options.k}": f"size={options.sizes}",
        f"budget {options.budget:,} chars, k = {deep}": (
            f"size={options.sizes}; budget={options.budget}; k={deep}"
        ),
    }
    for title, spec in sweeps.items():
        report = sweep(project, spec, options.workers)
        if report is None:
            return 1
        print_sweep(title, spec, report)
    return 0


def write_project(data: Path, project: Path, *, k: int, configured: int) -> None:
    (project / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (project / "docs").mkdir(exist_ok=True)
    (project / "gold").mkdir(exist_ok=True)
    questions = read_questions(data / "questions_df.csv")
    for corpus in CORPORA:
        text = (data / "corpora" / f"{corpus}.md").read_text(encoding="utf-8")
        (project / "docs" / f"{corpus}.md").write_text(text, encoding="utf-8")
        cases = [
            {
                "id": f"q{number:03d}-{part}",
                "question": question,
                "needle": answer_sentence(excerpt, question),
            }
            for number, (question, excerpts) in enumerate(questions[corpus], start=1)
            for part, excerpt in enumerate(excerpts, start=1)
        ]
        gold = {
            "corpus": f"../docs/{corpus}.md",
            "chunker_args": {"size": configured, "overlap": 0},
            "k": k,
            "cases": cases,
        }
        path = project / "gold" / f"{corpus}.yaml"
        path.write_text(yaml.safe_dump(gold, sort_keys=False, allow_unicode=True), "utf-8")


def sweep(project: Path, spec: str, workers: str) -> dict[str, Any] | None:
    """Run the sweep ``spec`` over the project; its JSON report, or ``None``: it failed."""
    report_path = project / "report.json"
    report_path.unlink(missing_ok=True)
    command = [
        *(sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly"),
        *("-q", "--tb=no", "--no-header", "-n", workers),
        *("-c", str(project / "pytest.ini"), "--rootdir", str(project)),
        *("--chunkrecall-sweep", spec, "--chunkrecall-report", str(report_path)),
        str(project / "gold"),
    ]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    print("$ " + shlex.join(command), flush=True)
    finished = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True)
    if finished.returncode not in (0, 1) or not report_path.exists():
        print(finished.stdout[-4000:], finished.stderr[-4000:], sep="\n")
        return None
    report: dict[str, Any] = json.loads(report_path.read_text(encoding="utf-8"))
    return report


def print_sweep(title: str, spec: str, report: dict[str, Any]) -> None:
    """The sweep's rows as a Markdown table, the best hit rate, and the setting it names."""
    rows = [row for row in report["sweep"]["rows"] if row["setting"] is not None]
    print(f"\n### {title} (`--chunkrecall-sweep {spec!r}`)\n")
    print("| setting | chunks | hit-rate | context a case | to the answer | hits per 1k chars |")
    print("|---|---:|---:|---:|---:|---:|")
    for row in rows:
        context = row["context_mean"] or 0.0
        per_1k = 1000 * row["hit_rate"] / context if context else 0.0
        print(
            f"| {row['label']} | {row['chunks']:,} | {row['hits']}/{row['cases']} "
            f"({row['hit_rate']:.1%}) | {context:,.0f} | "
            f"{row['context_to_answer_mean'] or 0:,.0f} | {per_1k:.2f} |"
        )
    ranked = sorted(rows, key=lambda row: -row["hit_rate"])
    winner, runner_up = ranked[0], ranked[1]
    ratio = (winner["context_to_answer_mean"] or 0) / (runner_up["context_to_answer_mean"] or 1)
    print(
        f"\nbest hit rate: {winner['label']} ({winner['hit_rate']:.1%}, "
        f"{winner['context_to_answer_mean']:,.0f} chars to the answer); runner-up "
        f"{runner_up['label']} ({runner_up['hit_rate']:.1%}, "
        f"{runner_up['context_to_answer_mean']:,.0f} chars): x{ratio:.2f} the context to the answer"
    )
    cheapest = report["sweep"].get("cheapest")
    if cheapest is not None:
        print(
            f"least context among the best: {cheapest['label']} "
            f"({cheapest['context_to_answer_mean']:,.0f} chars to the answer; as good as the "
            f"best: {', '.join(cheapest['tied'])})"
        )


if __name__ == "__main__":
    sys.exit(main())
