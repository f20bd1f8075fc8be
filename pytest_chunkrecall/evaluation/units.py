"""What a case must get back whole, and what came back: both in the case's match space.

A case's units are its span, or without one each needle, as its match mode
prepares them; the top k are the retrieved results with their texts prepared
the same way, and whether each counts under the case's ``doc`` pin.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from ..chunking.chunk import Chunk
from ..gold import Case
from ..retrieval.shapes import Retrieved
from .finder import Finder, Occurrence


@dataclass(frozen=True)
class Units:
    """What must come back whole, in match space, and what of the span is missing."""

    patterns: list[str]
    written: dict[str, str]  # pattern -> how the gold file wrote it
    shown: str | None  # the span as the failure message shows it
    missing: list[str]  # written parts of the span not in the corpus
    at: Occurrence | None  # where a {from, to} span was found
    outside: list[str]  # needles the found {from, to} span does not contain


@dataclass(frozen=True)
class TopK:
    """The retrieved results as the case's match mode reads them.

    ``texts`` are their texts in match space; ``counted`` says whether each
    counts: a chunk of a pinned document, or any result when nothing is pinned.
    """

    results: list[Retrieved]
    texts: list[str]
    counted: list[bool]

    @classmethod
    def of(cls, results: Sequence[Retrieved], finder: Finder, docs: Collection[str] | None) -> TopK:
        prepare = finder.matcher.prepare
        texts = [
            finder.prepared(result.chunk) if result.chunk is not None else prepare(result.text)
            for result in results
        ]
        return cls(list(results), texts, [counts(result.chunk, docs) for result in results])

    def holding(self, pattern: str, finder: Finder) -> list[int]:
        """The ranks of the results that count and hold ``pattern`` whole."""
        contains = finder.matcher.contains
        return [
            rank
            for rank, (text, counts) in enumerate(
                zip(self.texts, self.counted, strict=True), start=1
            )
            if counts and contains(text, pattern)
        ]

    def counted_chunks(self) -> list[Chunk]:
        """The chunks among the results that count, in rank order."""
        return [
            result.chunk
            for result, counts in zip(self.results, self.counted, strict=True)
            if counts and result.chunk is not None
        ]

    def chunks(self, ranks: Collection[int]) -> list[Chunk]:
        """The chunks at ``ranks`` (1-based, as :meth:`holding` gives them), in rank order."""
        found = (self.results[rank - 1].chunk for rank in sorted(ranks))
        return [chunk for chunk in found if chunk is not None]


def counts(chunk: Chunk | None, docs: Collection[str] | None) -> bool:
    """Whether a result counts: any result without a pin; with one, chunks of the pinned docs."""
    return docs is None or (chunk is not None and chunk.doc in docs)


def units_of(case: Case, finder: Finder, docs: Collection[str] | None) -> Units:
    """What must come back whole. Only a ``{from, to}`` span reads the corpus: it is the
    shortest passage there that runs from one to the other."""
    prepare = finder.matcher.prepare
    needles = {prepare(needle): needle for needle in case.needles}
    if case.span is None:
        return Units(list(needles), needles, None, [], None, [])
    if isinstance(case.span, str):
        span = prepare(case.span)
        return Units([span], {span: case.span}, case.span, [], None, [])
    start, end = prepare(case.span.start), prepare(case.span.end)
    shown = f"from {case.span.start!r} to {case.span.end!r}"
    written = {start: case.span.start, end: case.span.end}
    found = finder.passage(start, end, docs)
    if found is None:
        missing = [written[part] for part in (start, end) if not finder.occurs(part, docs)]
        return Units([], written, shown, missing or [str(case.span)], None, [])
    passage, at = found
    outside = [
        needle
        for pattern, needle in needles.items()
        if not finder.matcher.contains(passage, pattern)
    ]
    if outside:
        return Units([], written, shown, [], at, outside)
    return Units([passage], {passage: str(case.span)}, shown, [], at, [])


def holding_rank(
    case: Case, results: Sequence[Retrieved], finder: Finder, docs: Collection[str] | None
) -> tuple[int | None, Units]:
    """The rank in ``results`` by which every unit of ``case`` is held whole (the first chunk
    that holds the span; without one, the rank by which every needle has been held), or
    ``None`` when ``results`` do not hold them all; and the case's units."""
    units = units_of(case, finder, docs)
    ranks = [first_holding(results, pattern, finder, docs) for pattern in units.patterns]
    if not ranks or any(rank is None for rank in ranks):
        return None, units
    return max(rank for rank in ranks if rank is not None), units


def first_holding(
    results: Sequence[Retrieved], pattern: str, finder: Finder, docs: Collection[str] | None
) -> int | None:
    """The rank of the first of ``results`` that counts and holds ``pattern`` whole (its text
    prepared, as the top k's are, holds it); a chunk of the corpus is asked
    :meth:`Finder.holds`, which knows most of them from the corpus search without their text."""
    for rank, result in enumerate(results, start=1):
        chunk = result.chunk
        if not counts(chunk, docs):
            continue
        if chunk is not None:
            held = finder.holds(chunk, pattern, docs)
        else:
            held = finder.matcher.contains(finder.matcher.prepare(result.text), pattern)
        if held:
            return rank
    return None
