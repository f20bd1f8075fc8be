"""Ranking passages for a question: Okapi BM25 over stemmed words, without stopwords.

The index works on any passages that have a ``.text``: the package's own
:class:`shopkb.ingest.Passage`, or whatever another pipeline hands to
:func:`build`. Ranking is deterministic: equal scores go to the earlier passage.
"""

from __future__ import annotations

import heapq
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Generic, Protocol, TypeVar

_WORD = re.compile(r"[a-z0-9]+")
_STOPWORD_LIST = """
a about after all also am an and any are as at be been before being but by can could did
do does doing for from had has have having how i if in into is it its just me more most
my no not of off on once only or other our out over own same she should so some such
than that the their them then there these they this those through to too under until up
very was we were what when where which while who whom why will with would you your yours
"""
STOPWORDS = frozenset(_STOPWORD_LIST.split())


class HasText(Protocol):
    @property
    def text(self) -> str: ...


P = TypeVar("P", bound=HasText)


def stem(word: str) -> str:
    """A light English stemmer: plurals, -ing, -ed and a final -e, so "shipped" meets "shipping"."""
    if len(word) <= 3 or word.isdigit():
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
                word = word[:-1]  # shipp -> ship
            break
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    return word


def terms(text: str) -> list[str]:
    """The index terms of ``text``: lowercase words and numbers, stopwords dropped, stemmed."""
    return [stem(word) for word in _WORD.findall(text.lower()) if word not in STOPWORDS]


class Index(Generic[P]):
    """A BM25 index over ``passages``; ``k1`` and ``b`` are the usual Okapi parameters."""

    def __init__(self, passages: Sequence[P], *, k1: float = 1.2, b: float = 0.75) -> None:
        self.passages = list(passages)
        self.k1 = k1
        self.b = b
        self._postings: dict[str, list[tuple[int, int]]] = {}
        lengths = []
        for number, passage in enumerate(self.passages):
            counts = Counter(terms(passage.text))
            lengths.append(sum(counts.values()))
            for term, count in counts.items():
                self._postings.setdefault(term, []).append((number, count))
        average = sum(lengths) / len(lengths) if lengths else 1.0
        self._norms = [k1 * (1 - b + b * length / (average or 1.0)) for length in lengths]
        total = len(self.passages)
        self._idf = {
            term: math.log(1 + (total - len(found) + 0.5) / (len(found) + 0.5))
            for term, found in self._postings.items()
        }

    def scored(
        self, question: str, k: int = 3, filter: Mapping[str, object] | None = None
    ) -> list[tuple[P, float]]:
        """The ``k`` best passages for ``question`` with their scores, best first; with a
        ``filter``, only passages whose attributes have its values (``{"doc": "docs/a.md"}``)."""
        allowed = self._matching(filter) if filter else None
        scores: dict[int, float] = {}
        for term in dict.fromkeys(terms(question)):
            idf = self._idf.get(term)
            if idf is None:
                continue
            for number, count in self._postings[term]:
                if allowed is not None and number not in allowed:
                    continue
                gain = idf * count * (self.k1 + 1) / (count + self._norms[number])
                scores[number] = scores.get(number, 0.0) + gain
        best = heapq.nsmallest(k, scores.items(), key=lambda item: (-item[1], item[0]))
        return [(self.passages[number], score) for number, score in best]

    def search(
        self, question: str, k: int = 3, filter: Mapping[str, object] | None = None
    ) -> list[P]:
        """The ``k`` best passages for ``question``, best first (fewer if fewer share a word)."""
        return [passage for passage, _ in self.scored(question, k, filter)]

    def _matching(self, filter: Mapping[str, object]) -> set[int]:
        return {
            number
            for number, passage in enumerate(self.passages)
            if all(getattr(passage, key, None) == value for key, value in filter.items())
        }


def build(passages: Sequence[P], *, k1: float = 1.2, b: float = 0.75) -> Index[P]:
    """The index over ``passages``: the retriever factory the gold tests name."""
    return Index(passages, k1=k1, b=b)
