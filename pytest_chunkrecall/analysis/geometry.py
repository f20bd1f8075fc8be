"""Chunk geometry: chunk sizes, index cost, and what neighbouring chunks share (the effective
overlap), measured from where the chunks sit in their documents."""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypedDict

from ..chunking.chunk import Chunk
from ..corpus import Document


class Geometry(TypedDict):
    """Where a suite's chunks fall: sizes, index cost, and the effective overlap at boundaries."""

    chunks: int
    placed: int  # chunks whose offsets in their document are known
    size_p50: int
    size_max: int
    size_mean: float
    index_multiplier: float  # chunk text over corpus text: what overlap costs the index
    boundaries: int  # boundaries measured (between placed neighbours)
    overlap_min: int | None
    overlap_p50: int | None
    overlap_max: int | None
    no_overlap: int  # boundaries that share nothing
    gaps: int  # boundaries that leave text no chunk holds
    configured_overlap: int | None


def shared(text: str, end: int, start: int, length: Callable[[str], int] = len) -> int:
    """What a chunk ending at ``end`` shares with the next, starting at ``start``, in ``text``.

    Negative: a gap that no chunk holds. A gap of whitespace alone counts as no
    overlap, since nothing is lost there.
    """
    if end >= start:
        return length(text[start:end])
    gap = text[end:start]
    return -length(gap) if gap.strip() else 0


def percentile(values: list[int], share: float) -> int:
    """The nearest-rank percentile of ``values`` (``share`` from 0 to 1); 0 when empty."""
    if not values:
        return 0
    ordered = sorted(values)
    rank = max(1, min(len(ordered), math.ceil(share * len(ordered))))
    return ordered[rank - 1]


def measure(
    documents: Iterable[Document],
    chunks: Sequence[Chunk],
    *,
    length: Callable[[str], int] = len,
    configured_overlap: int | None = None,
) -> Geometry:
    """The chunk geometry of a suite, JSON-safe: sizes, index cost and effective overlap.

    The effective overlap at a boundary is the text a chunk shares with the
    chunks of its document before it (negative: a gap no chunk covers; a gap of
    whitespace alone counts as no overlap, since nothing is lost there).
    """
    sizes = [length(chunk.text) for chunk in chunks]
    by_doc: dict[str, list[Chunk]] = {}
    for chunk in chunks:
        by_doc.setdefault(chunk.doc, []).append(chunk)
    corpus = 0
    overlaps: list[int] = []
    for doc in documents:
        corpus += length(doc.text)
        overlaps += _boundaries(doc.text, by_doc.get(doc.id, []), length)
    placed_count = sum(1 for chunk in chunks if chunk.placed)
    return {
        "chunks": len(chunks),
        "placed": placed_count,
        "size_p50": percentile(sizes, 0.5),
        "size_max": max(sizes, default=0),
        "size_mean": round(sum(sizes) / len(sizes), 1) if sizes else 0,
        "index_multiplier": round(sum(sizes) / corpus, 3) if corpus else 0,
        "boundaries": len(overlaps),
        "overlap_min": min(overlaps) if overlaps else None,
        "overlap_p50": percentile(overlaps, 0.5) if overlaps else None,
        "overlap_max": max(overlaps) if overlaps else None,
        "no_overlap": sum(1 for v in overlaps if v <= 0),
        "gaps": sum(1 for v in overlaps if v < 0),
        "configured_overlap": configured_overlap,
    }


def _boundaries(text: str, chunks: list[Chunk], length: Callable[[str], int]) -> list[int]:
    """The effective overlap at each boundary between one document's chunks, in document order.

    Each chunk is measured against the farthest the chunks before it reach (a
    one-word chunk inside its neighbour's overlap leaves no gap). A boundary
    between chunks that have a chunk of unknown offsets between them in the
    chunker's output is not measured: what that chunk covers is unknown.
    """
    unplaced = [c.index for c in chunks if c.start is None]
    placed = sorted((c for c in chunks if c.start is not None), key=lambda c: (c.start, c.end))
    found: list[int] = []
    reach: int | None = None
    before: Chunk | None = None
    for chunk in placed:
        assert chunk.start is not None and chunk.end is not None
        if before is not None and reach is not None:
            low, high = sorted((before.index, chunk.index))
            if bisect_right(unplaced, low) == bisect_right(unplaced, high):
                found.append(shared(text, min(reach, chunk.end), chunk.start, length))
        reach = chunk.end if reach is None else max(reach, chunk.end)
        before = chunk
    return found


def configured_overlap(chunker_args: Mapping[str, Any]) -> int | None:
    """The overlap the chunker's arguments ask for (``overlap`` or ``chunk_overlap``), if any."""
    for name in ("overlap", "chunk_overlap"):
        value = chunker_args.get(name)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None
