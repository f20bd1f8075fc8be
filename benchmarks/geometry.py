"""Span analysis over a large corpus, in a process of its own: the geometry row's one count.

    python benchmarks/geometry.py PROJECT GOLD_FILE

Prints, as JSON, the seconds it took to read the corpus, chunk it and index it
(through a one-case gold file of the same configuration, ``warm.yaml`` beside
``GOLD_FILE``) and then the seconds for every case of ``GOLD_FILE``, through
``pytest_chunkrecall.evaluate``. The gold files' retriever finds nothing, so
that every span is located in the corpus and judged whole or cut. Each count
runs in a fresh process so that no cache of one count warms the other.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from pytest_chunkrecall import evaluate
from pytest_chunkrecall.chunkers import fixed_size
from pytest_chunkrecall.evaluation.suite import SuiteCache


def main(project: Path, gold: Path) -> dict[str, float]:
    sys.path.insert(0, str(project))  # the gold files' retriever is keywords:nothing
    suites = SuiteCache(project)
    started = time.perf_counter()
    evaluate(gold.parent / "warm.yaml", rootdir=project, suites=suites)
    built = time.perf_counter()
    results = evaluate(gold, rootdir=project, suites=suites)
    finished = time.perf_counter()
    texts = [path.read_text(encoding="utf-8") for path in (project / "docs").glob("*.md")]
    return {
        "chunks": sum(len(fixed_size(text, 800, 200)) for text in texts),
        "build": built - started,
        "spans": finished - built,
        "cases": len(results),
        "split": sum(result.span_split for result in results),
    }


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve())))
