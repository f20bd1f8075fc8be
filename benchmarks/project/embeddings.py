"""A dense retriever over wordllama embeddings, asked one question at a time or many at once.

``per_question`` offers only ``search(question, k)``; ``batched`` offers the
same ranking and also ``search_batch(questions, k)``, which embeds the
questions together and ranks them in one matrix product. The benchmark runs
the same gold files with each, so the difference is what batching saves;
``CALLS`` counts the calls, the questions and the seconds spent in them, and
the chunk lists embedded (the project's conftest writes them out). wordllama
ships its weights in its wheel: nothing is downloaded.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

CALLS: dict[str, float] = {
    "search": 0,
    "search_batch": 0,
    "questions": 0,
    "seconds": 0.0,
    "indexes": 0,
}


@cache
def _model() -> Any:
    import wordllama  # type: ignore[import-untyped]

    return wordllama.WordLlama.load(
        cache_dir=Path(wordllama.__file__).parent, disable_download=True
    )


def _unit(texts: Sequence[str]) -> Any:
    import numpy as np

    vectors = _model().embed(list(texts))
    lengths = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(lengths == 0, 1, lengths)


class Dense:
    """Chunks embedded once; questions ranked by cosine similarity, equal scores by chunk order."""

    def __init__(self, chunks: Sequence[Any]) -> None:
        self.vectors = _unit([chunk.text for chunk in chunks])
        CALLS["indexes"] += 1  # a corpus embedded: once per suite per process

    def search(self, question: str, k: int) -> list[int]:
        """The indexes of the ``k`` chunks closest to ``question``, best first."""
        return self._timed("search", [question], k)[0]

    def _timed(self, method: str, questions: Sequence[str], k: int) -> list[list[int]]:
        started = time.perf_counter()
        found = self._ranked(_unit(questions), k)
        CALLS[method] += 1
        CALLS["questions"] += len(questions)
        CALLS["seconds"] += time.perf_counter() - started
        return found

    def _ranked(self, questions: Any, k: int) -> list[list[int]]:
        import numpy as np

        scores = questions @ self.vectors.T
        order = np.argsort(-scores, axis=1, kind="stable")[:, :k]
        return [[int(number) for number in row] for row in order]


class Batched(Dense):
    """:class:`Dense`, and ``search_batch``: many questions in one embedding and one product."""

    def search_batch(self, questions: Sequence[str], k: int) -> list[list[int]]:
        """For each question, the indexes of the ``k`` closest chunks, best first."""
        if not questions:
            return []
        return self._timed("search_batch", questions, k)


def per_question(chunks: Sequence[Any]) -> Dense:
    """The retriever factory that answers one question per call."""
    return Dense(chunks)


def batched(chunks: Sequence[Any]) -> Batched:
    """The retriever factory that also answers many questions per call."""
    return Batched(chunks)
