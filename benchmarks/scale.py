"""The rows on how the plugin's cost grows: common needles, slow retrievers, batched retrievers.

- ``common``: a verdict's cost must not grow with how often its needle occurs.
  A 20 MB corpus of random words, 1,000 and then 10,000 cases whose needle is a
  word that occurs about 1,800 times (``common_needles.py``).
- ``concurrency``: a retriever that waits 20 ms a call, run with one call in
  flight (``chunkrecall_concurrency = 1``) and with eight.
- ``batching``: wordllama over the 472 questions of Chroma's chunking-evaluation
  data, by a retriever that answers one question a call and by the same
  retriever offering ``search_batch``.
"""

from __future__ import annotations

import json
import shutil
from importlib.util import find_spec
from pathlib import Path

import chunking_evaluation
import common_needles
import plain
import synthetic
import yaml
from measure import MB, PLUGIN, Row, Run, Sizes, alternate, median, pytest_run

TEMPLATE = Path(__file__).parent / "project"


def common(work: Path, sizes: Sizes) -> Row:
    """1,000 against 10,000 common-needle cases over one corpus: time, time a case, peak memory."""
    small, large = sizes.common_cases
    found, gold = common_needles.write_project(
        work / "common", corpus_chars=sizes.common_corpus, case_counts=(small, large)
    )
    tiny = synthetic.write_project(
        work / "common-tiny", cases=1, corpus_chars=2000, documents_count=1,
        retriever="keywords:index",
    )  # fmt: skip
    floor = pytest_run(tiny.root, *PLUGIN, "gold")
    # pytest's own cost of holding and running as many tests: the plugin loaded, no gold file
    trivial = pytest_run(plain.write_trivial(work / "common-plain", large), *PLUGIN)
    runs = {n: pytest_run(work / "common", *PLUGIN, str(gold[n])) for n in (small, large)}
    # what the user's side holds in any harness: the documents, their chunks, the retriever
    users = common_needles.user_data_mb(work / "common")
    ratio = runs[large].seconds / runs[small].seconds
    per_case = (runs[large].seconds - runs[small].seconds) / (large - small) * 1000
    # CPU time too: on a shared machine it moves far less than wall time.
    cpu = runs[large].cpu_seconds / runs[small].cpu_seconds
    cpu_per_case = (runs[large].cpu_seconds - runs[small].cpu_seconds) / (large - small) * 1000
    memory = (runs[large].peak_mb - floor.peak_mb) * MB / found.chars
    beyond_pytest = (runs[large].peak_mb - trivial.peak_mb) * MB / found.chars
    own = (runs[large].peak_mb - trivial.peak_mb - users) * MB / found.chars
    asked = yaml.safe_load(gold[large].read_text(encoding="utf-8"))["cases"]
    needles = sorted(found.counts[case["needle"]] for case in asked)
    met = ratio <= 4 and per_case < 2 and memory <= 5
    return Row(
        "common needles",
        f"{found.chars / MB:.1f} MB of random words (vocabulary {common_needles.VOCABULARY:,}), "
        f"200-char spans, each needle a word of its span found {needles[len(needles) // 2]:,} "
        f"times (median), {small:,} vs {large:,} cases",
        f"{small:,} cases {runs[small].seconds:.1f} s, {large:,} cases {runs[large].seconds:.1f} s"
        f" = **{ratio:.1f}x**; **{per_case:.2f} ms** a case beyond start-up (CPU time "
        f"{cpu:.1f}x, {cpu_per_case:.2f} ms a case); peak "
        f"{runs[large].peak_mb:.0f} MB = interpreter {floor.peak_mb:.0f} MB + **{memory:.1f}x** "
        f"the corpus = pytest with {large:,} plain tests {trivial.peak_mb:.0f} MB + "
        f"**{beyond_pytest:.1f}x** the corpus = that + the documents, their chunks and the "
        f"retriever alone {users:.0f} MB + the plugin's own **{own:.1f}x** the corpus",
        "<= 4x; < 2 ms a case; <= interpreter + 5x the corpus",
        met,
    )


def concurrency(work: Path, sizes: Sizes) -> Row:
    """A retriever that sleeps 20 ms a call, one call in flight against eight, and without the sleep.

    The run without the sleep is the floor; what the sleeping adds above it
    should shrink by up to 8x when eight calls are in flight.
    """
    sleepy, awake = (
        synthetic.write_project(
            work / f"slow-{sleep}", cases=sizes.slow_cases, corpus_chars=MB // 2,
            documents_count=10, retriever="keywords:index", retriever_args={"sleep": sleep},
        )
        for sleep in (0.02, 0.0)
    )  # fmt: skip

    def at(project: synthetic.Project, workers: int) -> Run:
        option = f"chunkrecall_concurrency={workers}"
        return pytest_run(project.root, *PLUGIN, "-o", option, "gold")

    runs: dict[str, list[Run]] = {"1": [], "8": [], "floor": []}
    for _ in range(sizes.slow_repeats):
        runs["1"].append(at(sleepy, 1))
        runs["8"].append(at(sleepy, 8))
        runs["floor"].append(at(awake, 1))
    serial, eight, floor = (median(runs[key]) for key in ("1", "8", "floor"))
    overlap = (serial - floor) / max(eight - floor, 1e-3)
    return Row(
        "concurrency",
        f"{sizes.slow_cases:,} cases, retriever sleeps 20 ms a call, "
        f"median of {sizes.slow_repeats}",
        f"`chunkrecall_concurrency=1` {serial:.2f} s / `=8` {eight:.2f} s "
        f"= **{serial / eight:.2f}x**; without the sleep {floor:.2f} s, so the waiting "
        f"({sizes.slow_cases * 0.02:.1f} s serial) shrank **{overlap:.1f}x**",
        "the waiting shrinks >= 4x",
        overlap >= 4,
    )


def batching(work: Path, sizes: Sizes) -> Row:
    """wordllama over every chunking-evaluation question: per question against batched."""
    data = chunking_evaluation.DATA
    if not (data / "questions_df.csv").is_file():
        return Row("batching", f"no data at {data}", "skipped")
    if find_spec("wordllama") is None or find_spec("numpy") is None:
        return Row("batching", "wordllama is not installed", "skipped")
    project = work / "batching"
    cases = write_questions(data, project)
    ways = ("per_question", "batched")
    calls: dict[str, dict[str, float]] = {}

    def way(name: str) -> Run:
        counted = work / f"batching-{name}"
        run = pytest_run(
            project, *PLUGIN, "-o", f"chunkrecall_retriever=embeddings:{name}",
            "--chunkrecall-report", str(project / f"{name}.json"), "gold",
            env={"CHUNKRECALL_BENCH_CALLS": str(counted)},
        )  # fmt: skip
        [written] = work.glob(f"{counted.name}.*")
        calls[name] = json.loads(written.read_text(encoding="utf-8"))
        written.unlink()
        return run

    single, batched = alternate(
        sizes.batch_repeats, lambda: way("per_question"), lambda: way("batched")
    )
    totals = [json.loads((project / f"{name}.json").read_text())["totals"] for name in ways]
    same = totals[0] == totals[1]

    def made(name: str) -> float:
        return calls[name]["search"] + calls[name]["search_batch"]

    def spent(name: str) -> str:
        counted = calls[name]
        return (
            f"{counted['search']:.0f} `search` + {counted['search_batch']:.0f} `search_batch` "
            f"calls for {counted['questions']:.0f} questions, {counted['seconds']:.2f} s in them"
        )

    return Row(
        "batching",
        f"wordllama (dense) over chunking_evaluation's {cases} questions, 5 corpora, "
        f"fixed_size 800/200, k 5, median of {sizes.batch_repeats}",
        f"per question {median(single):.2f} s ({spent('per_question')}) / offering "
        f"`search_batch` {median(batched):.2f} s ({spent('batched')}) "
        f"= **{median(single) / median(batched):.2f}x**; hit-rate {totals[1]['hit_rate']:.1%}"
        f"{'' if same else ' (**the two runs differ**)'}",
        "same verdicts, at most half the calls",
        same and 2 * made("batched") <= made("per_question"),
    )


def write_questions(data: Path, project: Path) -> int:
    """One gold file per corpus, one case per question; the number of questions."""
    (project / "docs").mkdir(parents=True)
    (project / "gold").mkdir()
    (project / "pytest.ini").write_text("[pytest]\npythonpath = .\n", encoding="utf-8")
    for module in ("conftest.py", "keywords.py", "embeddings.py"):
        shutil.copy(TEMPLATE / module, project / module)
    questions = chunking_evaluation.read_questions(data / "questions_df.csv")
    for corpus, asked in sorted(questions.items()):
        shutil.copy(data / "corpora" / f"{corpus}.md", project / "docs" / f"{corpus}.md")
        gold = {
            "corpus": f"../docs/{corpus}.md",
            "chunker": "pytest_chunkrecall.chunkers:fixed_size",
            "chunker_args": {"size": 800, "overlap": 200},
            "k": 5,
            "cases": chunking_evaluation.gold_cases(asked, "question"),
        }
        text = yaml.safe_dump(gold, sort_keys=False, allow_unicode=True)
        (project / "gold" / f"{corpus}.yaml").write_text(text, encoding="utf-8")
    return sum(len(asked) for asked in questions.values())
