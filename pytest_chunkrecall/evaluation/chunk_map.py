"""The chunk map: which chunk holds a passage of a document whole, and where a boundary cut it."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass

from ..chunking.chunk import Chunk


@dataclass(frozen=True)
class Cut:
    """The chunk boundary that divides a span, in document ``doc``.

    ``offset`` is where the span is divided: the end of ``left`` (the chunk
    reaching farthest into the span from its start) or, when no chunk covers
    the span's start, the start of ``right`` (the next chunk).
    """

    doc: str
    offset: int
    left: Chunk | None
    right: Chunk | None


class _Placed:
    """The placed chunks of one document in start order, with a running farthest end."""

    def __init__(self, chunks: list[Chunk]) -> None:
        chunks.sort(key=lambda chunk: (chunk.start, chunk.end, chunk.index))
        self.chunks = chunks
        self.starts = [chunk.start or 0 for chunk in chunks]  # every chunk here is placed
        self.farthest: list[Chunk] = []
        best: Chunk | None = None
        for chunk in chunks:
            if best is None or (chunk.end or 0) > (best.end or 0):
                best = chunk
            self.farthest.append(best)


class ChunkMap:
    """The chunks of a suite by document, for answering "is this span whole in one chunk?"."""

    def __init__(self, chunks: Iterable[Chunk]) -> None:
        placed: dict[str, list[Chunk]] = {}
        self.unplaced: dict[str, list[Chunk]] = {}
        for chunk in chunks:
            target = placed if chunk.placed else self.unplaced
            target.setdefault(chunk.doc, []).append(chunk)
        self._placed = {doc: _Placed(found) for doc, found in placed.items()}

    def placed(self, doc: str) -> list[Chunk]:
        """The placed chunks of ``doc`` in start order."""
        found = self._placed.get(doc)
        return found.chunks if found else []

    def holder(self, doc: str, start: int, end: int) -> Chunk | None:
        """A placed chunk that holds ``[start, end)`` of ``doc`` whole, if one does."""
        found = self._placed.get(doc)
        if found is None:
            return None
        last = bisect_right(found.starts, start) - 1  # the last chunk starting at or before it
        if last < 0:
            return None
        best = found.farthest[last]
        return best if best.end is not None and best.end >= end else None

    def holders(self, doc: str, start: int, end: int) -> list[Chunk]:
        """Every placed chunk that holds ``[start, end)`` of ``doc`` whole, in start order."""
        found = self._placed.get(doc)
        if found is None:
            return []
        last = bisect_right(found.starts, start) - 1
        held = []
        # The running farthest end falls going back: once it stops short of the
        # passage, no earlier chunk reaches it.
        while last >= 0 and (found.farthest[last].end or 0) >= end:
            chunk = found.chunks[last]
            if (chunk.end or 0) >= end:
                held.append(chunk)
            last -= 1
        return held[::-1]

    def cut(self, doc: str, start: int, end: int) -> Cut | None:
        """The boundary that divides ``[start, end)``, when no placed chunk holds it whole."""
        found = self._placed.get(doc)
        if found is None:
            return None
        last = bisect_right(found.starts, start) - 1  # the last chunk starting at or before it
        left = found.farthest[last] if last >= 0 else None
        if left is not None and (left.end or 0) <= start:
            left = None  # the span starts in a gap, or before the first chunk
        right = found.chunks[last + 1] if last + 1 < len(found.chunks) else None
        if left is not None:
            assert left.end is not None
            return Cut(doc, left.end, left, right)
        if right is not None:
            assert right.start is not None
            return Cut(doc, right.start, None, right)
        return None
