"""Ranking passages for a question by meaning: cosine similarity of wordllama embeddings.

The second retriever, beside the BM25 of :mod:`shopkb.search`: it compares
what a question and a passage are about rather than which words they share.
It needs the ``dense`` extra (``pip install -e '.[dense]'``). wordllama ships
its weights inside the package, so the model loads from disk, offline, on the
CPU. Nothing is imported until :func:`build` is called, so shopkb and its
BM25 retriever work without wordllama installed.

Passages are embedded once, when the index is built; each question is one
embedding and one matrix product. Like :mod:`shopkb.search`, ranking is
deterministic: equal scores go to the earlier passage.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic

from .search import P

if TYPE_CHECKING:
    import numpy as np

INSTALL_HINT = "pip install -e '.[dense]' in shopkb's project folder, or pip install wordllama"


@cache
def model() -> Any:
    """The wordllama model, loaded once per process from the weights in the package.

    ``disable_download`` keeps the load offline: a plain ``WordLlama.load()``
    would ask the network for files the package already ships.
    """
    try:
        import wordllama
    except ImportError as exc:
        raise ImportError(
            f"shopkb.dense embeds passages with wordllama, which is not installed; {INSTALL_HINT}"
        ) from exc
    return wordllama.WordLlama.load(
        cache_dir=Path(wordllama.__file__).parent, disable_download=True
    )


def embed(texts: Sequence[str]) -> np.ndarray:
    """One unit-length row per text: its wordllama embedding, so a dot product is a cosine."""
    found = model()  # first: without wordllama, say so, not that numpy is missing
    import numpy as np

    vectors: np.ndarray = found.embed(list(texts))
    lengths = np.linalg.norm(vectors, axis=1, keepdims=True)
    # An empty text embeds as zeros: it stays zero, so it matches nothing,
    # instead of turning into NaN and upsetting the ranking.
    return vectors / np.where(lengths == 0, 1, lengths)


class DenseIndex(Generic[P]):
    """Passages embedded once; questions ranked against them by cosine similarity."""

    def __init__(self, passages: Sequence[P]) -> None:
        self.passages = list(passages)
        self._vectors = embed([p.text for p in self.passages])

    def scored(self, question: str, k: int = 3) -> list[tuple[P, float]]:
        """The ``k`` passages closest in meaning to ``question``, with their cosines, best first."""
        import numpy as np

        if not self.passages or k < 1:
            return []
        scores = self._vectors @ embed([question])[0]
        best = np.argsort(-scores, kind="stable")[:k]
        return [(self.passages[number], float(scores[number])) for number in best]

    def search(self, question: str, k: int = 3) -> list[P]:
        """The ``k`` passages closest in meaning to ``question``, best first."""
        return [passage for passage, _ in self.scored(question, k)]


def build(passages: Sequence[P]) -> DenseIndex[P]:
    """The dense index over ``passages``: a retriever factory, like :func:`shopkb.search.build`."""
    return DenseIndex(passages)
