"""A cheap retriever, and a chunker and retriever that count their calls, for the benchmarks.

Copied into each generated benchmark project, where both the plugin's gold files
and the hand-written test use it, so that the two do the same retrieval.
"""

from __future__ import annotations

import re
import time
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
    first, so the suite mostly passes, as a regression suite does.
    """
    texts = [" ".join(chunk.text.lower().split()) for chunk in chunks]
    postings: dict[str, list[int]] = {}
    for number, text in enumerate(texts):
        for word in set(_WORD.findall(text)):
            postings.setdefault(word, []).append(number)

    def search(question: str, k: int) -> list[int]:
        words = _WORD.findall(question.lower())
        found = [postings[w] for w in words if w in postings]
        if not found:
            return []
        candidates = min(found, key=len)
        phrase = " ".join(words)
        whole = [n for n in candidates if phrase in texts[n]][:k]
        if len(whole) >= k:
            return whole
        chosen = set(whole)
        return (whole + [n for n in candidates if n not in chosen])[:k]

    return search


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
