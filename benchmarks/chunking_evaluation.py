"""Hit-rate@k and split spans on Chroma's chunking-evaluation data, measured through the plugin.

Writes one gold file per (corpus, chunker, unit) into a temporary project, runs
pytest on it once with ``--chunkrecall-report``, and prints a table from the
report. A unit is either a *question* (one case per question; each of its
reference excerpts is a needle, and so its own span), an *excerpt* (one case
per reference excerpt), or an *anchored* excerpt (one case per excerpt, whose
needle is the excerpt's sentence that shares most words with the question and
whose span is the whole excerpt: the short-needle-plus-span shape real gold files
have). The retriever is the built-in BM25.

The data is read from ``../shared/data/chunking_evaluation`` (next to the
repository) or ``--data``; without it the benchmark says so and exits 0.

    python benchmarks/chunking_evaluation.py
    python benchmarks/chunking_evaluation.py --corpus pubmed --k 10 --keep /tmp/ce
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
# next to the checkout, or wherever CHUNKRECALL_BENCH_DATA says (a worktree elsewhere)
DATA = Path(
    os.environ.get("CHUNKRECALL_BENCH_DATA")
    or ROOT.parent / "shared" / "data" / "chunking_evaluation"
)
CORPORA = ("state_of_the_union", "pubmed")
CHUNKERS = {
    "fixed_size": ("pytest_chunkrecall.chunkers:fixed_size", {"size": 800, "overlap": 200}),
    "langchain_recursive": (
        "langchain_text_splitters:RecursiveCharacterTextSplitter",
        {"chunk_size": 800, "chunk_overlap": 200},
    ),
}
UNITS = ("question", "excerpt", "anchored")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA, help="the chunking_evaluation folder")
    parser.add_argument("--corpus", action="append", choices=CORPORA, help="default: both")
    parser.add_argument("--k", type=int, default=5, help="top k asked for (default: 5)")
    parser.add_argument("--keep", type=Path, help="write the project here and keep it")
    options = parser.parse_args(argv)
    if not (options.data / "questions_df.csv").is_file():
        print(f"chunking_evaluation: skipped, no data at {options.data}")
        return 0
    chunkers = {
        name: spec
        for name, spec in CHUNKERS.items()
        if importlib.util.find_spec(spec[0].partition(":")[0].partition(".")[0]) is not None
    }
    for name in CHUNKERS.keys() - chunkers.keys():
        print(f"chunking_evaluation: {name} skipped, {CHUNKERS[name][0]} is not installed")
    corpora = tuple(options.corpus or CORPORA)
    if options.keep:
        options.keep.mkdir(parents=True, exist_ok=True)
        return run(options.data, options.keep, corpora, chunkers, options.k)
    with tempfile.TemporaryDirectory(prefix="chunking-evaluation-") as folder:
        return run(options.data, Path(folder), corpora, chunkers, options.k)


def run(
    data: Path,
    project: Path,
    corpora: tuple[str, ...],
    chunkers: dict[str, tuple[str, dict[str, int]]],
    k: int,
) -> int:
    write_project(data, project, corpora, chunkers, k)
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        "-q",
        "--tb=no",
        "--no-header",
        "-c",
        str(project / "pytest.ini"),
        "--rootdir",
        str(project),
        "--chunkrecall-report",
        str(project / "report.json"),
        str(project / "gold"),
    ]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    print("$ " + shlex.join(command), flush=True)
    finished = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True)
    report_path = project / "report.json"
    if finished.returncode not in (0, 1) or not report_path.exists():
        print(finished.stdout[-4000:], finished.stderr[-4000:], sep="\n")
        return finished.returncode or 1
    print_table(json.loads(report_path.read_text(encoding="utf-8")), k)
    return 0


def write_project(
    data: Path,
    project: Path,
    corpora: tuple[str, ...],
    chunkers: dict[str, tuple[str, dict[str, int]]],
    k: int,
) -> None:
    (project / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (project / "docs").mkdir(exist_ok=True)
    (project / "gold").mkdir(exist_ok=True)
    questions = read_questions(data / "questions_df.csv")
    for corpus in corpora:
        text = (data / "corpora" / f"{corpus}.md").read_text(encoding="utf-8")
        (project / "docs" / f"{corpus}.md").write_text(text, encoding="utf-8")
        for unit in UNITS:
            cases = gold_cases(questions[corpus], unit)
            for name, (reference, args) in chunkers.items():
                gold = {
                    "corpus": f"../docs/{corpus}.md",
                    "chunker": reference,
                    "chunker_args": args,
                    "k": k,
                    "cases": cases,
                }
                path = project / "gold" / f"{corpus}--{name}--{unit}.yaml"
                path.write_text(yaml.safe_dump(gold, sort_keys=False, allow_unicode=True), "utf-8")


def read_questions(path: Path) -> dict[str, list[tuple[str, list[str]]]]:
    """Each corpus's questions, with the text of their reference excerpts."""
    found: dict[str, list[tuple[str, list[str]]]] = {}
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            excerpts = [reference["content"] for reference in json.loads(row["references"])]
            found.setdefault(row["corpus_id"], []).append((row["question"], excerpts))
    return found


def gold_cases(questions: list[tuple[str, list[str]]], unit: str) -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = []
    for number, (question, excerpts) in enumerate(questions, start=1):
        if unit == "question":
            cases.append({"id": f"q{number:03d}", "question": question, "needles": excerpts})
        else:
            for part, excerpt in enumerate(excerpts, start=1):
                case = {"id": f"q{number:03d}-{part}", "question": question, "needle": excerpt}
                if unit == "anchored":
                    case = {**case, "needle": answer_sentence(excerpt, question), "span": excerpt}
                cases.append(case)
    return cases


def answer_sentence(excerpt: str, question: str) -> str:
    """The excerpt's sentence that shares the most words with the question (the first on ties)."""
    asked = set(re.findall(r"\w+", question.lower()))
    pieces = [p for p in re.split(r"(?<=[.!?])\s+", excerpt.strip()) if p.strip()]
    return max(pieces, key=lambda p: len(asked & set(re.findall(r"\w+", p.lower()))))


def print_table(report: dict[str, Any], k: int) -> None:
    print()
    print(
        f"| corpus | chunker (800/200) | unit | cases | chunks | hit-rate@{k} | split spans "
        "| hit / split / ranked_out / absent |"
    )
    print("|---|---|---|---:|---:|---:|---:|---|")
    for gold in report["gold_files"]:
        corpus, chunker, unit = Path(gold["path"]).stem.split("--")
        totals = gold["totals"]
        verdicts = " / ".join(
            str(totals["verdicts"][v]) for v in ("hit", "split", "ranked_out", "absent")
        )
        print(
            f"| {corpus} | {chunker} | {unit} | {totals['cases']} | {gold.get('chunks', '?')} | "
            f"{totals['hits']}/{totals['cases']} ({totals['hit_rate']:.1%}) | "
            f"{totals['split_spans']} | {verdicts} |"
        )


if __name__ == "__main__":
    sys.exit(main())
