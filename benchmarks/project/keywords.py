"""A cheap retriever, and a chunker and retriever that count their calls, for the benchmarks.

Copied into each generated benchmark project, where both the plugin's gold files
and the hand-written test use it, so that the two do the same retrieval.
"""

from __future__ import annotations

import re
import time
from array import array
from bisect import bisect_left
from collections.abc import Callable, Sequence
from typing import Any

_WORD = re.compile(r"\w+")
CALLS = {"chunker": 0, "retriever": 0}


def index(chunks: Sequence[Any], sleep: float = 0.0) -> Callable[[str, int], list[int]]:
    """``search(question, k)``: the first ``k`` chunks holding the question's rarest word.

    ``sleep`` seconds are spent in every search, to stand for a slow retriever.
    """
    postings: dict[str, list[int]] = {}
    for number, chunk in enumerate(chunks):
        for word in set(_WORD.findall(chunk.text.lower())):
            postings.setdefault(word, []).append(number)

    def search(question: str, k: int) -> list[int]:
        if sleep:
            time.sleep(sleep)
        found = [postings[w] for w in _WORD.findall(question.lower()) if w in postings]
        return min(found, key=len)[:k] if found else []

    return search


def ranked(chunks: Sequence[Any]) -> Callable[[str, int], list[int]]:
    """``search(question, k)``: the chunks holding the question's rarest word, best first.

    Those holding the question's words as one phrase come first (in corpus
    order), then the rest: the chunk a question was written from comes back
    first, so the suite mostly passes, as a regression suite does. A chunk
    holds the phrase when its lowered text, each run of spaces made one, has
    the question's words joined by single spaces.
    """
    phrase = _phrase_search(chunks)

    def search(question: str, k: int) -> list[int]:
        whole, candidates = phrase(question)
        if len(whole) >= k:
            return whole[:k]
        chosen = set(whole)
        return (whole + [n for n in candidates if n not in chosen])[:k]

    return search


def misranked(chunks: Sequence[Any]) -> Callable[[str, int], list[int]]:
    """:func:`ranked` turned around: the chunks holding the question's words as one phrase
    come last, so that most cases miss as ``ranked_out`` (the chunk a question was written
    from ranks below the other chunks holding its rarest word), as in a suite that finds
    a regression."""
    phrase = _phrase_search(chunks)

    def search(question: str, k: int) -> list[int]:
        whole, candidates = phrase(question)
        chosen = set(whole)
        return ([n for n in candidates if n not in chosen] + whole)[:k]

    return search


def _phrase_search(chunks: Sequence[Any]) -> Callable[[str], tuple[list[int], Sequence[int]]]:
    """``phrase(question)``: the chunks holding the question's words as one phrase, and
    every chunk holding its rarest word (both in corpus order).

    Only the postings are kept (each word's chunk numbers, ascending, 4 bytes
    each), not a lowered copy of every chunk: the phrase is looked for in the
    few candidates that hold each of its inner words, which any chunk holding
    the phrase does as words of its own.
    """
    postings: dict[str, array[int]] = {}
    for number, chunk in enumerate(chunks):
        for word in set(_WORD.findall(chunk.text.lower())):
            if word not in postings:
                postings[word] = array("i")
            postings[word].append(number)

    def phrase(question: str) -> tuple[list[int], Sequence[int]]:
        words = _WORD.findall(question.lower())
        found = [postings[w] for w in words if w in postings]
        if not found:
            return [], _NONE
        candidates = min(found, key=len)
        joined = " ".join(words)
        possible = list(candidates)
        inners = {id(p): p for p in (postings.get(w, _NONE) for w in words[1:-1])}
        inners.pop(id(candidates), None)  # every candidate holds the rarest word
        for inner in sorted(inners.values(), key=len):
            end = len(inner)
            possible = [
                n for n in possible if (at := bisect_left(inner, n)) < end and inner[at] == n
            ]
        if len(words) > 1:  # a lone word is in every chunk that holds it
            possible = [n for n in possible if joined in " ".join(chunks[n].text.lower().split())]
        return possible, candidates

    return phrase


_NONE: array[int] = array("i")


def windows(text: str, size: int = 800, overlap: int = 200) -> list[str]:
    """The built-in ``fixed_size`` chunker, written out so the hand-written test needs no plugin."""
    return [text[start : start + size] for start in range(0, len(text), size - overlap)]


def counted_chunker(text: str, size: int = 800, overlap: int = 200) -> list[str]:
    """:func:`windows`, counting its calls."""
    CALLS["chunker"] += 1
    return windows(text, size, overlap)


def counted_index(chunks: Sequence[Any]) -> Callable[[str, int], list[int]]:
    """:func:`index`, counting its calls."""
    CALLS["retriever"] += 1
    return index(chunks)


def nothing(chunks: Sequence[Any]) -> Callable[[str, int], list[int]]:
    """``search(question, k)`` that finds nothing: every case is then a miss to explain."""
    return lambda question, k: []
