"""Chunk geometry: chunk sizes, index cost, and what neighbouring chunks share (the effective
overlap), measured from where the chunks sit in their documents."""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import pairwise
from typing import Any, TypedDict

from ..corpus import Document
from .chunk import Chunk


class _Nesting(TypedDict, total=False):
    """What nested chunks change; absent from reports written before nesting was measured."""

    nested: int  # placed chunks inside one before them (a parent's children): no boundary there
    window_p50: int  # the median size of the other chunks, between which boundaries fall


class Geometry(_Nesting):
    """Where a suite's chunks fall: sizes, index cost, and the effective overlap at boundaries."""

    chunks: int
    placed: int  # chunks whose offsets in their document are known
    size_p50: int
    size_max: int
    size_mean: float
    index_multiplier: float  # chunk text over corpus text: what overlap costs the index
    boundaries: int  # boundaries measured (where a placed chunk reaches past those before it)
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
    whitespace alone counts as no overlap, since nothing is lost there). A chunk
    nested in one before it (a parent's child) makes no boundary.
    """
    sizes = [length(chunk.text) for chunk in chunks]
    by_doc: dict[str, list[Chunk]] = {}
    for chunk in chunks:
        by_doc.setdefault(chunk.doc, []).append(chunk)
    corpus = 0
    overlaps: list[int] = []
    windows: list[int] = []  # the sizes of the chunks not nested in another
    for doc in documents:
        corpus += length(doc.text)
        outer = _outer(by_doc.get(doc.id, []))
        overlaps += _boundaries(doc.text, outer, by_doc.get(doc.id, []), length)
        windows += [length(chunk.text) for chunk in outer]
    placed_count = sum(1 for chunk in chunks if chunk.placed)
    nested = placed_count - len(windows)
    # Unplaced chunks may or may not be nested: they count as windows of their own.
    windows += [length(chunk.text) for chunk in chunks if not chunk.placed]
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
        "nested": nested,
        "window_p50": percentile(windows, 0.5),
    }


def _outer(chunks: list[Chunk]) -> list[Chunk]:
    """One document's placed chunks that reach past every chunk before them, in document order.

    In start order (the longer first at a shared start), a chunk that ends
    within the reach of those before it is nested (a child of a
    parent-and-children chunker, a one-word chunk inside its neighbour's
    overlap): it divides no text, so no boundary falls at it.
    """
    placed = sorted((c for c in chunks if c.start is not None), key=_reading_order)
    outer: list[Chunk] = []
    for chunk in placed:
        assert chunk.end is not None
        if not outer or chunk.end > (outer[-1].end or 0):
            outer.append(chunk)
    return outer


def _reading_order(chunk: Chunk) -> tuple[int, int, int]:
    """Start order, the longer chunk first at a shared start (a parent before its first child)."""
    assert chunk.start is not None and chunk.end is not None
    return chunk.start, -chunk.end, chunk.index


def _boundaries(
    text: str, outer: list[Chunk], chunks: list[Chunk], length: Callable[[str], int]
) -> list[int]:
    """The effective overlap at each boundary between one document's ``outer`` chunks, in order.

    Each chunk is measured against the farthest the chunks before it reach. A
    boundary between chunks that have a chunk of unknown offsets between them
    in the chunker's output (``chunks``) is not measured: what that chunk
    covers is unknown.
    """
    unplaced = [c.index for c in chunks if c.start is None]
    found: list[int] = []
    for before, chunk in pairwise(outer):
        assert before.end is not None and chunk.start is not None
        low, high = sorted((before.index, chunk.index))
        if bisect_right(unplaced, low) == bisect_right(unplaced, high):
            found.append(shared(text, before.end, chunk.start, length))
    return found


# The unit of the configured overlap of the chunkers it is known for: the built-in
# windows and LangChain's character splitters count characters (their default
# length_function is len), LlamaIndex's sentence and token splitters count tokens.
_OVERLAP_UNITS = {
    "pytest_chunkrecall.chunkers:fixed_size": "chars",
    "langchain_text_splitters:RecursiveCharacterTextSplitter": "chars",
    "langchain_text_splitters:CharacterTextSplitter": "chars",
    "llama_index.core.node_parser:SentenceSplitter": "tokens",
    "llama_index.core.node_parser:TokenTextSplitter": "tokens",
}


def overlap_unit(chunker: str) -> str | None:
    """The unit of ``chunker``'s configured overlap when it is known (``"chars"``,
    ``"tokens"``), else ``None``: the chunker's own unit, which the effective overlap,
    measured in ``chunkrecall_length``'s unit, need not share."""
    return _OVERLAP_UNITS.get(chunker)


def configured_overlap(chunker_args: Mapping[str, Any]) -> int | None:
    """The overlap the chunker's arguments ask for (``overlap`` or ``chunk_overlap``), if any."""
    for name in ("overlap", "chunk_overlap"):
        value = chunker_args.get(name)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None
