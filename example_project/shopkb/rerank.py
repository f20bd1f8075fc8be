"""Reordering a first stage's candidates: the second stage of retrieval.

BM25 scores each question word on its own, wherever it sits in the passage.
:func:`proximity` reranks the candidates by how close together the question's
words stand in each one: a passage that says "express shipping costs $18" in
one breath beats one that mentions shipping at its start and a cost at its
end. It needs nothing but the standard library. :func:`by_meaning` reranks by
wordllama similarity instead (the ``dense`` extra), as a cross-encoder would.

Both are rerank functions, ``rerank(question, passages, k)``: they return at
most ``k`` of the passages they are given, best first, and break ties by the
first stage's order.
"""

from __future__ import annotations

from collections.abc import Sequence

from .search import P, terms


def window(text: str, wanted: set[str]) -> tuple[int, int]:
    """(how many of ``wanted`` the passage has, the shortest run of its terms that holds them all).

    The run is counted in index terms; a passage without any wanted term has ``(0, 0)``.
    """
    words = terms(text)
    present = wanted.intersection(words)
    if not present:
        return 0, 0
    best = len(words)
    seen: dict[str, int] = {}
    start = 0
    for end, word in enumerate(words):
        if word not in present:
            continue
        seen[word] = seen.get(word, 0) + 1
        while len(seen) == len(present):
            best = min(best, end - start + 1)
            first = words[start]
            if first in seen:
                seen[first] -= 1
                if not seen[first]:
                    del seen[first]
            start += 1
    return len(present), best


def proximity(question: str, passages: Sequence[P], k: int) -> list[P]:
    """The ``k`` passages whose question words are the most and stand the closest, best first.

    The first stage's order counts too, by reciprocal rank fusion of the two
    orders (rank 1 of 50 is worth more than rank 30), so that one tight phrase
    does not outweigh a passage BM25 found far better.
    """
    wanted = set(terms(question))
    measured = [window(passage.text, wanted) for passage in passages]
    by_window = sorted(range(len(passages)), key=lambda i: (-measured[i][0], measured[i][1], i))
    fused = {i: 1 / (60 + rank) for rank, i in enumerate(range(len(passages)), start=1)}
    for rank, i in enumerate(by_window, start=1):
        fused[i] += 1 / (60 + rank)
    order = sorted(fused, key=lambda i: (-fused[i], i))
    return [passages[i] for i in order[:k]]


def by_meaning(question: str, passages: Sequence[P], k: int) -> list[P]:
    """The ``k`` passages closest in meaning to ``question`` (wordllama cosines), best first."""
    from .dense import embed

    if not passages:
        return []
    scores = embed([p.text for p in passages]) @ embed([question])[0]
    order = sorted(range(len(passages)), key=lambda i: (-float(scores[i]), i))
    return [passages[i] for i in order[:k]]
