"""The corpus text closest to a needle the corpus does not hold: what the failure shows
in its place, so a mistyped or paraphrased needle can be told from a missing fact."""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from ..chunking.chunk import Chunk
from .finder import Finder
from .results import NearestText

SHOWN = 3  # candidates a failure message offers
_CANDIDATE_CHUNKS = 20  # chunks most like the needle that are searched, besides the retrieved ones
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
# rapidfuzz is imported where fuzzy scoring is done: a run that needs none never loads it


@dataclass(frozen=True, order=True)
class _Score:
    """How a person would rank a candidate against the needle, best highest.

    First its shape: the needle's words other than numbers that it has, then
    its numbers that stand where the needle has one of the same length; then
    how alike the two read with every number's digits masked; then whether the
    retriever brought its chunk back; last, how alike they are as written.
    So for ``25 business days``, ``20 business days`` wins over ``2 business
    days``, and for ``16 weeks`` a retrieved ``20 weeks`` over ``12 weeks``.
    """

    words: int
    numbers: int
    masked: float
    retrieved: bool
    written: float


def closest(finder: Finder, pattern: str, retrieved: Collection[int] = ()) -> list[NearestText]:
    """Up to :data:`SHOWN` corpus texts most like ``pattern`` (a needle not in the corpus), best first.

    Searched are the chunks most like it and the ``retrieved`` ones (chunk
    indexes): within each, the runs of about as many words as the pattern has,
    ranked by :class:`_Score`. A miss pays for this, a hit never does.
    """
    from rapidfuzz import fuzz, process

    prepared = finder.every_prepared()
    similar = process.extract(
        pattern, prepared, scorer=fuzz.partial_ratio, processor=None, limit=_CANDIDATE_CHUNKS
    )
    pool = dict.fromkeys([index for _, _, index in similar] + sorted(retrieved))
    wanted = pattern.split()
    plain = {word for word in wanted if not _NUMBER.fullmatch(word)}
    masked_pattern = _masked(pattern)
    best: dict[str, tuple[_Score, Chunk, range]] = {}
    for index in pool:
        chunk = finder.chunks[index]
        words = _around(finder, chunk, len(pattern)).split()
        for width in range(max(1, len(wanted) - 1), len(wanted) + 2):
            for at in range(max(1, len(words) - width + 1)):
                text = " ".join(words[at : at + width])
                seen = finder.matcher.prepare(text)
                score = _Score(
                    len(plain.intersection(seen.split())),
                    _numbers_in_place(wanted, seen.split()),
                    fuzz.ratio(masked_pattern, _masked(seen)),
                    index in retrieved,
                    fuzz.ratio(pattern, seen),
                )
                if text not in best or score > best[text][0]:
                    best[text] = (score, chunk, range(at, at + width))
    found: list[NearestText] = []
    chosen: list[tuple[str, Chunk, range]] = []
    for text, (score, chunk, words_at) in sorted(
        best.items(), key=lambda item: item[1][0], reverse=True
    ):
        if any(_same_place((text, chunk, words_at), other) for other in chosen):
            continue
        chosen.append((text, chunk, words_at))
        found.append(
            NearestText(pattern, text, round(float(score.written), 1), chunk.doc, chunk.index)
        )
        if len(found) == SHOWN:
            break
    return found


def _same_place(one: tuple[str, Chunk, range], other: tuple[str, Chunk, range]) -> bool:
    """Whether two runs of words show the same place twice: they overlap in one chunk, or one
    is part of the other (as where chunks overlap)."""
    text, chunk, words = one
    other_text, other_chunk, other_words = other
    if (
        chunk.index == other_chunk.index
        and words.start < other_words.stop
        and other_words.start < words.stop
    ):
        return True
    return f" {text} " in f" {other_text} " or f" {other_text} " in f" {text} "


def _masked(text: str) -> str:
    """``text`` with each digit written as ``0``: numbers compared by their length alone."""
    return re.sub(r"\d", "0", text)


def _numbers_in_place(wanted: list[str], seen: list[str]) -> int:
    """How many of the needle's numbers the candidate matches in length at the same word position."""
    return sum(
        1
        for want, have in zip(wanted, seen, strict=False)
        if _NUMBER.fullmatch(want) and _NUMBER.fullmatch(have) and len(want) == len(have)
    )


def closest_in(finder: Finder, pattern: str, doc: str) -> NearestText | None:
    """The text of document ``doc`` most like ``pattern``, out to whole words: where a loader
    that lost a fact left what it made of it (``30days`` for ``30 days``)."""
    found = finder.nearest(pattern, doc)
    if found is None:
        return None
    where, score = found
    text = finder.document(doc).text
    start, end = where.start, where.end
    # out to whole words, within the pattern's length: "window30days", not "30days"
    lowest, highest = max(0, start - len(pattern)), min(len(text), end + len(pattern))
    while start > lowest and not text[start - 1].isspace():
        start -= 1
    while end < highest and not text[end].isspace():
        end += 1
    return NearestText(pattern, " ".join(text[start:end].split()), round(score, 1), doc, None)


def _around(finder: Finder, chunk: Chunk, reach: int) -> str:
    """The chunk's text widened in its document by ``reach`` and out to whole words.

    The closest text to a mistyped needle often straddles a boundary (that is
    why the case failed); words cut at a chunk's edge would show the author
    text the corpus does not say.
    """
    if chunk.start is None or chunk.end is None:
        return chunk.text
    text = finder.document(chunk.doc).text
    # Out to whole words, but within twice the reach: text without spaces
    # (Chinese, Japanese) has no word to finish.
    lowest, highest = max(0, chunk.start - 2 * reach), min(len(text), chunk.end + 2 * reach)
    start, end = max(0, chunk.start - reach), min(len(text), chunk.end + reach)
    while start > lowest and not text[start - 1].isspace():
        start -= 1
    while end < highest and not text[end].isspace():
        end += 1
    return text[start:end]
