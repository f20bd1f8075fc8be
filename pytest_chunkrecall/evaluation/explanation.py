"""Explaining a miss: where a boundary cut the span, whether its pieces came back, and
which other documents have what a pinned case's documents do not.

What a failure message shows beside the verdict; a hit never needs it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence

from ..chunking.chunk import Chunk
from ..chunking.geometry import shared
from ..text import edges
from .finder import Finder, Location, Occurrence
from .results import ChunkView, CutView, Glued
from .units import TopK

_CONTEXT = 40  # characters shown either side of a cut
_PIECE_OCCURRENCES = 20  # occurrences of a split span tried for pieces that came back
_ELSEWHERE = 5  # other documents named for text that is not in the pinned ones


def elsewhere(absent: list[str], finder: Finder, docs: Collection[str] | None) -> list[str]:
    """The other documents that do hold the missing text, when the case pins its documents."""
    prepare = finder.matcher.prepare
    found: dict[str, None] = {}
    for text in absent:
        pattern = prepare(text)
        for occurrence in finder.occurrences(pattern):
            if docs is None or occurrence.doc not in docs:
                found.setdefault(occurrence.doc, None)
                if len(found) >= _ELSEWHERE:
                    return list(found)
    return list(found)


def glued(patterns: Sequence[str], written: Mapping[str, str], top: TopK) -> Glued | None:
    """The first retrieved chunk (that counts) holding a missed unit once whitespace is
    ignored on both sides: ``90 days`` in ``Personal token90days``, which a loader that
    joins table cells or lines without a space leaves. Only the top k are read."""
    for pattern in patterns:
        joined = "".join(pattern.split())
        for rank, (text, counts) in enumerate(zip(top.texts, top.counted, strict=True), start=1):
            found = _squeezed_find(text, joined) if counts and joined else None
            # glued: fewer words there than in the unit (not the same words spaced otherwise)
            if found is not None and len(text[found[0] : found[1]].split()) < len(pattern.split()):
                return Glued(written[pattern], _run_around(text, *found), rank)
    return None


def _squeezed_find(text: str, joined: str) -> tuple[int, int] | None:
    """Where ``joined`` (text without whitespace) is in ``text`` once its whitespace is
    dropped, as ``(start, end)`` offsets of ``text``; a number is matched whole."""
    squeezed = "".join(text.split())
    if joined not in squeezed:  # most chunks of a miss: decided at C speed, no offsets kept
        return None
    places = [match.start() for match in _NOT_SPACE.finditer(text)]
    at = edges.find(squeezed, joined)
    if at < 0:
        return None
    return places[at], places[at + len(joined) - 1] + 1


_NOT_SPACE = re.compile(r"\S")
_GLUED_REACH = 20  # characters shown of the run a glued unit sits in, either side of it


def _run_around(text: str, start: int, end: int) -> str:
    """``text[start:end]`` grown to the whitespace on either side (at most
    :data:`_GLUED_REACH` characters more each way): the glued run as the chunk reads."""
    low = start
    while low > max(0, start - _GLUED_REACH) and not text[low - 1].isspace():
        low -= 1
    high = end
    while high < min(len(text), end + _GLUED_REACH) and not text[high].isspace():
        high += 1
    return text[low:high]


def pieces_retrieved(
    split: list[str], placed: list[Chunk], finder: Finder, docs: Collection[str] | None
) -> bool:
    """Whether each split span's pieces (its parts between the cuts) all lie in the ``placed``
    chunks (the top k that count)."""
    for pattern in split:
        for number, occurrence in enumerate(finder.occurrences(pattern, docs)):
            if number >= _PIECE_OCCURRENCES:
                return False
            if _covered(occurrence, placed):
                break
        else:
            return False
    return True


def _covered(occurrence: Occurrence, chunks: list[Chunk]) -> bool:
    """Whether ``chunks`` together cover the occurrence's text, with no gap."""
    reach = occurrence.start
    spans = sorted(
        (chunk.start, chunk.end)
        for chunk in chunks
        if chunk.doc == occurrence.doc and chunk.start is not None and chunk.end is not None
    )
    for start, end in spans:
        if start > reach:
            break
        reach = max(reach, end)
        if reach >= occurrence.end:
            return True
    return reach >= occurrence.end


def cut_view(finder: Finder, location: Location, length: Callable[[str], int]) -> CutView | None:
    """Where a boundary divides the span at ``location``, and the text either side of it."""
    occurrence = location.occurrence
    if occurrence is None:
        return None
    cut = finder.chunk_map.cut(occurrence.doc, occurrence.start, occurrence.end)
    if cut is None or (cut.left is not None and cut.offset >= occurrence.end):
        # No boundary divides it: a chunk covers it but, in exact mode, holds
        # it only up to whitespace or case (the chunker rewrote them).
        return None
    text = finder.document(occurrence.doc).text
    before = text[max(occurrence.start - 10, cut.offset - _CONTEXT, 0) : cut.offset]
    after = text[cut.offset : min(occurrence.end + 10, cut.offset + _CONTEXT)]
    left, right = cut.left, cut.right
    overlap = None
    if left is not None and right is not None and left.end is not None and right.start is not None:
        overlap = shared(text, left.end, right.start)
    return CutView(
        doc=cut.doc,
        offset=cut.offset,
        before=_one_line(before),
        after=_one_line(after),
        left=finder.views.view(left, length=length) if left else None,
        right=finder.views.view(right, length=length) if right else None,
        overlap=overlap,
    )


def held_view(finder: Finder, chunk: Chunk | None) -> ChunkView:
    """How a chunk that holds a missed span is shown (an empty view when none is known)."""
    return finder.views.view(chunk) if chunk is not None else ChunkView.of(None)


def _one_line(text: str) -> str:
    return text.replace("\r", " ").replace("\n", " ").replace("\t", " ")
