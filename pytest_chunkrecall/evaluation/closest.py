"""The corpus text closest to a needle the corpus does not hold: what the failure shows
in its place, so a mistyped or paraphrased needle can be told from a missing fact."""

from __future__ import annotations

from rapidfuzz import fuzz, process

from ..chunking.chunk import Chunk
from .finder import Finder
from .results import Closest


def closest(finder: Finder, pattern: str) -> Closest | None:
    """The corpus text most like ``pattern``, for a needle that is not in the corpus.

    The chunks most like it are found first; within them, the run of about
    as many words as the pattern has that shares most of its words, and then
    is most like it.
    """
    prepared = finder.every_prepared()
    candidates = process.extract(
        pattern, prepared, scorer=fuzz.partial_ratio, processor=None, limit=20
    )
    wanted = set(pattern.split())
    best: tuple[int, float, str, Chunk] | None = None
    for _, _, index in candidates:
        chunk = finder.chunks[index]
        words = _around(finder, chunk, len(pattern)).split()
        for width in range(max(1, len(wanted) - 1), len(wanted) + 2):
            for at in range(max(1, len(words) - width + 1)):
                text = " ".join(words[at : at + width])
                seen = finder.matcher.prepare(text)
                shared = len(wanted.intersection(seen.split()))
                score = fuzz.ratio(pattern, seen)
                if best is None or (shared, score) > best[:2]:
                    best = (shared, score, text, chunk)
    if best is None:
        return None
    _, score, text, chunk = best
    return Closest(pattern, text, round(float(score), 1), chunk.doc, chunk.index)


def closest_in(finder: Finder, pattern: str, doc: str) -> Closest | None:
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
    return Closest(pattern, " ".join(text[start:end].split()), round(score, 1), doc, None)


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
