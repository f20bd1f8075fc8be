"""Built-in retrievers."""

from __future__ import annotations

import heapq
import math
import re
from collections import Counter
from collections.abc import Callable, Sequence

from .chunking.chunk import Chunk

_WORD = re.compile(r"\w+")


def tokens(text: str) -> list[str]:
    """Lowercase word tokens, as the built-in BM25 sees text."""
    return _WORD.findall(text.lower())


def bm25(
    chunks: Sequence[Chunk], k1: float = 1.5, b: float = 0.75
) -> Callable[[str, int], list[int]]:
    """Okapi BM25 over lowercase word tokens; ``search(question, k)`` returns chunk indexes.

    Only chunks sharing a word with the question are returned, best first; ties
    go to the earlier chunk.
    """
    postings: dict[str, list[tuple[int, int]]] = {}
    lengths = []
    for number, chunk in enumerate(chunks):
        counts = Counter(tokens(chunk.text))
        lengths.append(sum(counts.values()))
        for term, count in counts.items():
            postings.setdefault(term, []).append((number, count))
    total = len(lengths)
    average = (sum(lengths) / total) if total else 0.0
    norms = [k1 * (1 - b + b * length / average) if average else k1 for length in lengths]
    idf = {
        term: math.log(1 + (total - len(found) + 0.5) / (len(found) + 0.5))
        for term, found in postings.items()
    }

    def search(question: str, k: int) -> list[int]:
        scores: dict[int, float] = {}
        for term in dict.fromkeys(tokens(question)):
            weight = idf.get(term)
            if weight is None:
                continue
            for number, count in postings[term]:
                scores[number] = scores.get(number, 0.0) + weight * count * (k1 + 1) / (
                    count + norms[number]
                )
        best = heapq.nsmallest(k, scores.items(), key=lambda item: (-item[1], item[0]))
        return [number for number, _ in best]

    return search
