"""The rows on asking ahead under xdist, and on LlamaIndex's own evaluator over the same questions.

- ``scale-xdist``: ``-n 2`` against a serial run, for the retriever that waits
  20 ms a call (``chunkrecall_concurrency`` 1) and for wordllama offering
  ``search_batch``; beside them, what ``-n 2`` gives plain tests that sleep as
  long, and plain tests doing the wordllama run's work (``plain.py``), and how
  many questions the workers sent together (none twice).
- ``llamaindex``: the chunking-evaluation questions and the same wordllama
  ranking through LlamaIndex's ``RetrieverEvaluator`` with two asyncio workers
  (``aevaluate_dataset``'s way; llama-index-core 0.14 no longer has that
  method), with the plugin's definition of a hit as its metric, for time and
  for agreement on hit-rate@5.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from importlib.util import find_spec
from pathlib import Path
from typing import Any, ClassVar

import chunking_evaluation
import plain
import scale
import synthetic
import yaml
from measure import MB, PLUGIN, XDIST, Row, Run, Sizes, alternate, compiled, median, pytest_run

SLEEPING_TESTS = """
import time
import pytest

@pytest.mark.parametrize("number", range({cases}))
def test_sleep(number):
    time.sleep(0.02)
"""


def scale_xdist(work: Path, sizes: Sizes) -> list[Row]:
    """``-n 2`` against serial: a retriever that waits, wordllama in batches, and plain tests."""
    if find_spec("xdist") is None:
        return [Row("-n 2", "pytest-xdist is not installed", "skipped")]
    env = compiled(work)
    sleepy = synthetic.write_project(
        work / "xdist-slow",
        cases=sizes.slow_cases,
        corpus_chars=MB // 2,
        documents_count=10,
        retriever="keywords:index",
        retriever_args={"sleep": 0.02},
    )
    (sleepy.root / "test_sleep.py").write_text(
        SLEEPING_TESTS.format(cases=sizes.slow_cases), encoding="utf-8"
    )

    def two(target: str) -> tuple[list[Run], list[Run]]:
        return alternate(
            sizes.slow_repeats,
            lambda: pytest_run(sleepy.root, *PLUGIN, *XDIST, "-n", "0", target, env=env),
            lambda: pytest_run(sleepy.root, *PLUGIN, *XDIST, "-n", "2", target, env=env),
        )

    # untimed, so that the first timed run does not compile what the others load
    pytest_run(sleepy.root, *PLUGIN, *XDIST, "-n", "2", "test_sleep.py::test_sleep[0]", env=env)
    sleeping = two("test_sleep.py")
    slow = two("gold")
    plain_speedup = median(sleeping[0]) / median(sleeping[1])
    slow_speedup = median(slow[0]) / median(slow[1])
    rows = [
        Row(
            "-n 2",
            f"{sizes.slow_cases:,} cases, retriever sleeps 20 ms a call, concurrency 1, "
            f"median of {sizes.slow_repeats}",
            f"serial {median(slow[0]):.2f} s / `-n 2` {median(slow[1]):.2f} s = "
            f"**{slow_speedup:.2f}x**; {sizes.slow_cases:,} plain tests sleeping 20 ms: "
            f"{median(sleeping[0]):.2f} s / {median(sleeping[1]):.2f} s = {plain_speedup:.2f}x",
            "no less than plain tests get (within 10%)",
            slow_speedup >= 0.9 * plain_speedup,
        )
    ]
    data = chunking_evaluation.DATA
    if not (data / "questions_df.csv").is_file() or find_spec("wordllama") is None:
        return [
            *rows,
            Row("-n 2, batched", "no chunking_evaluation data or no wordllama", "skipped"),
        ]
    project = work / "xdist-batching"
    cases = scale.write_questions(data, project)
    sent: dict[str, list[dict[str, float]]] = {}
    built: dict[str, float] = {}  # corpora embedded, in all processes of the last run

    def batched(workers: str, *extra: str) -> Run:
        name = f"{workers}-off" if extra else workers
        counted = work / f"xdist-batching-{name}"
        run = pytest_run(
            project,
            *PLUGIN,
            *XDIST,
            "-n",
            workers,
            "-o",
            "chunkrecall_retriever=embeddings:batched",
            "-o",
            "chunkrecall_depth=0",
            "--chunkrecall-report",
            str(project / f"n{name}.json"),
            *extra,
            "gold",
            env={**env, "CHUNKRECALL_BENCH_CALLS": str(counted)},
        )
        found = [json.loads(p.read_text()) for p in work.glob(f"{counted.name}.*")]
        for path in work.glob(f"{counted.name}.*"):
            path.unlink()
        sent[name] = [c for c in found if c.get("questions")]
        built[name] = sum(c.get("indexes", 0) for c in found)
        return run

    by_hand = work / "xdist-plain"
    plain_cases = plain.write_questions(data, by_hand)

    def plain_run(*workers: str) -> Run:
        return pytest_run(by_hand, *XDIST, "-n", *workers, env=env)

    # side by side: serial, -n 2 with each gold file on one worker, -n 2 as xdist's load
    # chunks; then the same work as plain tests (a module per corpus), serial and -n 2
    batched("0"), plain_run("0")  # the wordllama modules compiled, untimed
    serial, parallel, ungrouped = [], [], []
    plain_serial, plain_load, plain_file = [], [], []
    for _ in range(sizes.batch_repeats):
        serial.append(batched("0"))
        parallel.append(batched("2"))
        ungrouped.append(batched("2", "-o", "chunkrecall_xdist_group=false"))
        plain_serial.append(plain_run("0"))
        plain_load.append(plain_run("2", "--dist", "load"))
        plain_file.append(plain_run("2", "--dist", "loadfile"))
    names = ("0", "2", "2-off")
    reports = [json.loads((project / f"n{n}.json").read_text()) for n in names]
    same = all(
        r["totals"] == reports[0]["totals"]
        and [(c["nodeid"], c["verdict"]) for c in r["cases"]]
        == [(c["nodeid"], c["verdict"]) for c in reports[0]["cases"]]
        for r in reports[1:]
    )
    asked = [sum(c["questions"] for c in sent[n]) for n in names]
    speedup = median(serial) / median(parallel)
    by_load = median(plain_serial) / median(plain_load)
    by_file = median(plain_serial) / median(plain_file)
    rows.append(
        Row(
            "-n 2, batched",
            f"wordllama offering `search_batch` over chunking_evaluation's {cases} questions "
            f"in 5 gold files, `chunkrecall_depth=0`, median of {sizes.batch_repeats}; "
            f"beside it the same work as {plain_cases} plain tests, a module per corpus "
            "(a module-scoped fixture chunks it with `fixed_size` 800/200 and embeds the "
            "chunks; each test embeds its question and ranks them)",
            f"serial {median(serial):.2f} s / `-n 2` {median(parallel):.2f} s = "
            f"**{speedup:.2f}x** (with `chunkrecall_xdist_group=false`: "
            f"{median(ungrouped):.2f} s = {median(serial) / median(ungrouped):.2f}x); "
            f"plain tests doing the same work: serial {median(plain_serial):.2f} s / "
            f"`-n 2 --dist load` {median(plain_load):.2f} s = **{by_load:.2f}x**, "
            f"`--dist loadfile` {median(plain_file):.2f} s = **{by_file:.2f}x**; "
            f"questions sent: {asked[0]:.0f} serial, {asked[1]:.0f} by "
            f"{len(sent['2'])} workers in "
            f"{sum(c['search_batch'] for c in sent['2']):.0f} batches "
            f"({asked[2]:.0f} in {sum(c['search_batch'] for c in sent['2-off']):.0f} ungrouped); "
            f"corpora embedded: {built['0']:.0f} serial, {built['2']:.0f} by `-n 2`, "
            f"{built['2-off']:.0f} ungrouped"
            f"{'' if same else ' (**the verdicts differ**)'}",
            "same verdicts; no question sent twice; each corpus embedded once; the speed-up "
            "no less than plain tests doing the same work get under either `--dist` "
            "(within 10%)",
            same
            and asked[0] == asked[1] == asked[2] == cases
            and built["2"] == built["0"]
            and speedup >= 0.9 * max(by_load, by_file),
        )
    )
    return rows


def llamaindex(work: Path, sizes: Sizes) -> Row:
    """The same questions and ranking through LlamaIndex's ``RetrieverEvaluator``."""
    data = chunking_evaluation.DATA
    if not (data / "questions_df.csv").is_file():
        return Row("LlamaIndex evaluator", f"no data at {data}", "skipped")
    if find_spec("wordllama") is None or find_spec("llama_index") is None:
        return Row("LlamaIndex evaluator", "wordllama or llama-index is not installed", "skipped")
    project = work / "llamaindex"
    cases = scale.write_questions(data, project)
    args = (
        "-o",
        "chunkrecall_retriever=embeddings:batched",
        "-o",
        "chunkrecall_depth=0",
        "--chunkrecall-report",
        str(project / "r.json"),
        "gold",
    )
    plugin = [pytest_run(project, *PLUGIN, *args) for _ in range(sizes.batch_repeats)]
    report = json.loads((project / "r.json").read_text(encoding="utf-8"))
    hits = {(c["gold_file"], c["id"]): c["verdict"] == "hit" for c in report["cases"]}
    times, theirs = [], {}
    for _ in range(sizes.batch_repeats):
        started = time.perf_counter()
        theirs = _evaluate(project)
        times.append(time.perf_counter() - started)
    agree = sum(theirs[key] == hit for key, hit in hits.items())
    several = sum(
        len(case["needles"]) > 1
        for path in (project / "gold").glob("*.yaml")
        for case in yaml.safe_load(path.read_text(encoding="utf-8"))["cases"]
    )
    ours, lli = sum(hits.values()) / len(hits), sum(theirs.values()) / len(theirs)
    return Row(
        "LlamaIndex evaluator",
        f"wordllama over chunking_evaluation's {cases} questions ({several} with several "
        "excerpts), fixed_size 800/200, k 5; on both sides a hit is every excerpt whole in "
        f"some top-5 chunk (normalized matching); median of {sizes.batch_repeats}",
        f"plugin (a pytest process, batched) {median(plugin):.2f} s / "
        f"`RetrieverEvaluator.aevaluate`, 2 workers, in-process "
        f"{sorted(times)[len(times) // 2]:.2f} s; hit-rate@5 {ours:.1%} vs {lli:.1%}, the "
        f"same verdict on **{agree} of {len(hits)}** questions",
    )


async def _workers(
    evaluator: Any, questions: list[tuple[str, str, list[str]]], *, workers: int
) -> list[tuple[str, bool]]:
    """``aevaluate`` over every question, ``workers`` at a time.

    What ``aevaluate_dataset(dataset, workers=...)`` did before llama-index-core
    0.14 dropped it with its dataset class: a semaphore over ``aevaluate`` calls.
    Each question is given its excerpts as the expected texts.
    """
    gate = asyncio.Semaphore(workers)

    async def one(case_id: str, question: str, excerpts: list[str]) -> tuple[str, bool]:
        async with gate:
            result = await evaluator.aevaluate(question, [], expected_texts=excerpts)
        return case_id, result.metric_vals_dict["every_excerpt"] > 0

    return list(await asyncio.gather(*(one(*q) for q in questions)))


def _evaluate(project: Path) -> dict[tuple[str, str], bool]:
    """Each case's hit under LlamaIndex's evaluator, by (gold file, case id).

    LlamaIndex's stock ``hit_rate`` counts a hit when one retrieved id is among
    the expected ids: one set of relevant chunks, so a question of several
    excerpts could only be given the chunks holding all of them. The metric
    given here is the plugin's definition instead, over the retrieved texts:
    every excerpt whole in some retrieved chunk, matched as the plugin's default
    ``normalized`` mode matches, so that both sides answer the same question.
    """
    import yaml
    from llama_index.core.evaluation import RetrieverEvaluator
    from llama_index.core.evaluation.retrieval.metrics_base import (
        BaseRetrievalMetric,
        RetrievalMetricResult,
    )
    from llama_index.core.retrievers import BaseRetriever
    from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

    sys.path.insert(0, str(project))
    import embeddings

    from pytest_chunkrecall.chunkers import fixed_size
    from pytest_chunkrecall.corpus import Document
    from pytest_chunkrecall.evaluation.suite import Component, chunk_corpus
    from pytest_chunkrecall.text.matcher import Matcher

    matcher = Matcher("normalized")

    class EveryExcerpt(BaseRetrievalMetric):  # type: ignore[misc]
        """1.0 when every expected text is whole in some retrieved text, else 0.0."""

        metric_name: ClassVar[str] = "every_excerpt"

        def compute(
            self,
            query: str | None = None,
            expected_ids: list[str] | None = None,
            retrieved_ids: list[str] | None = None,
            expected_texts: list[str] | None = None,
            retrieved_texts: list[str] | None = None,
            **kwargs: Any,
        ) -> RetrievalMetricResult:
            texts = [matcher.prepare(text) for text in retrieved_texts or []]
            hit = all(
                any(matcher.contains(text, matcher.prepare(excerpt)) for text in texts)
                for excerpt in expected_texts or []
            )
            return RetrievalMetricResult(score=1.0 if hit else 0.0)

    class Dense(BaseRetriever):  # type: ignore[misc]
        def __init__(self, nodes: list[TextNode]) -> None:
            super().__init__()
            self.nodes = nodes
            self.index = embeddings.Dense(nodes_as_chunks(nodes))

        def _retrieve(self, query: QueryBundle) -> list[NodeWithScore]:
            return [
                NodeWithScore(node=self.nodes[n]) for n in self.index.search(query.query_str, 5)
            ]

    def nodes_as_chunks(nodes: list[TextNode]) -> list[Any]:
        return [type("C", (), {"text": node.text})() for node in nodes]

    found: dict[tuple[str, str], bool] = {}
    for gold_path in sorted((project / "gold").glob("*.yaml")):
        gold = yaml.safe_load(gold_path.read_text(encoding="utf-8"))
        doc = (gold_path.parent / gold["corpus"]).resolve()
        chunks = chunk_corpus(
            [Document(doc.name, doc.read_text(encoding="utf-8"))],
            Component.of("fixed_size", fixed_size, gold["chunker_args"]),
        )
        nodes = [TextNode(id_=f"c{c.index}", text=c.text) for c in chunks]
        evaluator = RetrieverEvaluator(metrics=[EveryExcerpt()], retriever=Dense(nodes))
        name = f"gold/{gold_path.name}"
        questions = [(case["id"], case["question"], case["needles"]) for case in gold["cases"]]
        for case_id, hit in asyncio.run(_workers(evaluator, questions, workers=2)):
            found[(name, case_id)] = hit
    return found
