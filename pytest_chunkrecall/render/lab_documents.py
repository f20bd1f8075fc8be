"""A document as the lab page draws it: chunk windows, marked spans and cuts, text in pieces.

The text is cut at every chunk edge, span edge and cut, so that the page's script only
places pieces and never does offset arithmetic on text (whose offsets are Python
characters, not JavaScript's UTF-16 units). Past :data:`EXCERPT_ABOVE` characters in a
document, or :data:`CORPUS_ABOVE` in the whole corpus, only excerpts around the spans and
cuts are kept; the chunk windows are always all there.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypedDict

if TYPE_CHECKING:
    from .html import DocumentData

# Past this many characters, a document is shown as excerpts around its spans and cuts.
EXCERPT_ABOVE = 200_000
# Past this many characters in all documents together, every document is shown as excerpts.
CORPUS_ABOVE = 2_000_000
# Characters of context an excerpt keeps on either side of a span or a cut.
CONTEXT = 300
# How far an excerpt's edge may move to fall between words.
_SNAP = 40


class Mark(TypedDict):
    """A gold span (or a lone cut) drawn in a document, with the case it belongs to."""

    case: str
    start: int
    end: int
    split: bool
    cut: int | None


class DocumentView(TypedDict):
    """A document as the page draws it."""

    id: str
    chars: int
    excerpted: bool
    chunks: list[list[int]]
    unplaced: list[int]
    marks: list[Mark]
    pieces: list[list[Any]]


def document_view(
    doc: DocumentData, cases: Sequence[Mapping[str, Any]], *, excerpts: bool = False
) -> DocumentView:
    """A document's chunk windows, its marks and its text cut into pieces (or excerpts)."""
    text, doc_id = doc["text"], doc["id"]
    placed = sorted(
        (c for c in doc["chunks"] if c["start"] is not None and c["end"] is not None),
        key=lambda c: (c["start"], c["end"], c["index"]),
    )
    windows = [[c["index"], c["start"] or 0, c["end"] or 0] for c in placed]
    marks = _marks(doc_id, cases, len(text))
    excerpted = excerpts or len(text) > EXCERPT_ABOVE
    if excerpted:
        shown = _merge(
            [_between_words(text, m["start"] - CONTEXT, m["end"] + CONTEXT) for m in marks]
        )
    else:
        shown = [(0, len(text))] if text else []
    edges = {e for _, a, b in windows for e in (a, b)}
    edges |= {e for m in marks for e in (m["start"], m["end"], m["cut"]) if e is not None}
    return {
        "id": doc_id,
        "chars": len(text),
        "excerpted": excerpted,
        "chunks": windows,
        "unplaced": sorted(
            c["index"] for c in doc["chunks"] if c["start"] is None or c["end"] is None
        ),
        "marks": marks,
        "pieces": _pieces(text, shown, sorted(edges), windows, marks),
    }


def _marks(doc_id: str, cases: Sequence[Mapping[str, Any]], length: int) -> list[Mark]:
    marks: list[Mark] = []
    for case in cases:
        at, cut = case.get("span_at"), case.get("cut")
        cut_here = (
            cut.get("offset") if isinstance(cut, Mapping) and cut.get("doc") == doc_id else None
        )
        if not isinstance(cut_here, int) or not 0 <= cut_here <= length:
            cut_here = None
        located = _located(at, doc_id, length)
        if located:
            start, end = located
        elif cut_here is not None:
            start = end = cut_here
        else:
            continue
        split = bool(case.get("span_split"))
        marks.append(
            {
                "case": str(case["nodeid"]),
                "start": start,
                "end": end,
                "split": split,
                "cut": cut_here,
            }
        )
    marks.sort(key=lambda m: (m["start"], -m["end"], m["case"]))
    return marks


def _located(at: object, doc_id: str, length: int) -> tuple[int, int] | None:
    """The span's offsets in this document, inside its text, if ``span_at`` gives them."""
    if not isinstance(at, Mapping) or at.get("doc") != doc_id:
        return None
    start, end = at.get("start"), at.get("end")
    if not isinstance(start, int) or not isinstance(end, int):
        return None
    start = max(0, min(start, length))
    return start, max(start, min(end, length))


def _between_words(text: str, start: int, end: int) -> tuple[int, int]:
    """An excerpt's edges, inside the text, moved outwards (a little) to the nearest whitespace."""
    start, end = max(0, start), min(len(text), end)
    before = text.rfind(" ", max(0, start - _SNAP), start)
    after = text.find(" ", end, end + _SNAP)
    return (before + 1 if before >= 0 else start, after if after >= 0 else end)


def _merge(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(ranges):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _pieces(
    text: str,
    shown: list[tuple[int, int]],
    edges: list[int],
    windows: list[list[int]],
    marks: list[Mark],
) -> list[list[Any]]:
    """``[start, end, text, chunk ordinals covering it, mark numbers covering it]`` per piece."""
    pieces: list[list[Any]] = []
    chunk_cover = _Cover([(a, b) for _, a, b in windows])
    mark_cover = _Cover([(m["start"], m["end"]) for m in marks])
    for low, high in shown:
        cuts = [low, *(e for e in edges if low < e < high), high]
        for start, end in itertools.pairwise(cuts):
            pieces.append(
                [start, end, text[start:end], chunk_cover.at(start, end), mark_cover.at(start, end)]
            )
    return pieces


class _Cover:
    """Which ranges cover each piece, for pieces asked in order: one pass, not ranges x pieces."""

    def __init__(self, ranges: list[tuple[int, int]]) -> None:
        self._order = sorted(range(len(ranges)), key=lambda n: ranges[n][0])
        self._ranges = ranges
        self._next = 0
        self._open: list[int] = []

    def at(self, start: int, end: int) -> list[int]:
        while self._next < len(self._order) and self._ranges[self._order[self._next]][0] <= start:
            self._open.append(self._order[self._next])
            self._next += 1
        self._open = [n for n in self._open if self._ranges[n][1] > start]
        return sorted(n for n in self._open if self._ranges[n][1] >= end)
