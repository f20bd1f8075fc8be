"""Deciding a case's verdict from what the retriever returned, and explaining a miss.

The unit that must come back is the case's span (every needle lies inside it),
or, without a span, each needle on its own. A hit is one top-k chunk holding
the whole span; with needles alone, every needle whole in some top-k chunk.
Only chunks of the case's pinned documents count, when it has a ``doc``.

A hit is decided from the retrieved chunks alone, as a hand-written
``needle in chunk`` test decides it. The corpus is searched only to explain a
miss: is the span in it at all (absent), whole in some chunk (ranked_out), or
cut by a boundary (split)? A ``{from, to}`` span is the one exception: it is
the shortest such passage of the corpus, so finding it reads the corpus.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..chunking.chunk import Chunk
from ..chunking.geometry import shared
from ..gold import Case, SpanRange
from ..retrieval.shapes import Retrieved
from .closest import closest
from .finder import Finder, Location, Occurrence
from .results import CaseResult, ChunkView, CutView, Held, SpanAt, Verdict

_CONTEXT = 40  # characters shown either side of a cut
_PIECE_OCCURRENCES = 20  # occurrences of a split span tried for pieces that came back
_ELSEWHERE = 5  # other documents named for text that is not in the pinned ones


@dataclass(frozen=True)
class _Units:
    """What must come back whole, in match space, and what of the span is missing."""

    patterns: list[str]
    written: dict[str, str]  # pattern -> how the gold file wrote it
    shown: str | None  # the span as the failure message shows it
    missing: list[str]  # written parts of the span not in the corpus
    at: Occurrence | None  # where a {from, to} span was found
    outside: list[str]  # needles the found {from, to} span does not contain


@dataclass(frozen=True)
class _Top:
    """The retrieved results as the case's match mode reads them.

    ``texts`` are their texts in match space; ``counted`` says whether each
    counts: a chunk of a pinned document, or any result when nothing is pinned.
    """

    results: list[Retrieved]
    texts: list[str]
    counted: list[bool]

    @classmethod
    def of(cls, results: Sequence[Retrieved], finder: Finder, docs: Collection[str] | None) -> _Top:
        prepare = finder.matcher.prepare
        texts = [
            finder.prepared(result.chunk) if result.chunk is not None else prepare(result.text)
            for result in results
        ]
        return cls(list(results), texts, [_counts(result.chunk, docs) for result in results])

    def first_rank(self, pattern: str, finder: Finder) -> int | None:
        """The rank of the first result that counts and holds ``pattern`` whole."""
        contains = finder.matcher.contains
        for rank, (text, counts) in enumerate(zip(self.texts, self.counted, strict=True), start=1):
            if counts and contains(text, pattern):
                return rank
        return None

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

    def chunks(self, ranks: Collection[int]) -> list[Chunk]:
        """The chunks at ``ranks`` (1-based, as :meth:`holding` gives them), in rank order."""
        found = (self.results[rank - 1].chunk for rank in sorted(ranks))
        return [chunk for chunk in found if chunk is not None]


def decide(ranks: Sequence[int | None], *, absent: bool, whole: Sequence[bool]) -> Verdict:
    """The verdict, from each unit's first rank in the top k and what the corpus says of a miss.

    ``absent``: a unit, or a part of the span, is not in the corpus; ``whole[i]``:
    some chunk of the corpus holds unit ``i`` whole.
    """
    if absent:
        return "absent"
    if all(rank is not None for rank in ranks):
        return "hit"
    if any(rank is None and not held for rank, held in zip(ranks, whole, strict=True)):
        return "split"
    return "ranked_out"


@dataclass(frozen=True)
class _Context:
    """What every entry of a case records, whatever its verdict."""

    case: Case
    units: _Units
    top: _Top
    finder: Finder
    gold_file: str
    k: int
    docs: Collection[str] | None
    length: Callable[[str], int]
    unit: str

    def entry(self, verdict: Verdict, rank: int | None, **details: Any) -> CaseResult:
        """The case's result with ``verdict``, ``rank`` and the ``details`` of its verdict."""
        case, finder, length = self.case, self.finder, self.length
        return CaseResult(
            gold_file=self.gold_file,
            id=case.id,
            line=case.line,
            question=case.question,
            needles=list(case.needles),
            span=self.units.shown,
            verdict=verdict,
            rank=rank,
            k=self.k,
            match=finder.matcher.mode,
            needle_lengths=[length(needle) for needle in case.needles],
            span_length=_span_length(case, self.units, finder, length),
            unit=self.unit,
            top=[
                finder.views.view(result.chunk, rank=result.rank, length=length)
                if result.chunk is not None
                else ChunkView.of(None, text=result.text, rank=result.rank)
                for result in self.top.results
            ],
            retrieved_ids=[
                finder.views.id(result.chunk) if result.chunk is not None else None
                for result in self.top.results
            ],
            docs=sorted(self.docs) if self.docs is not None else None,
            **details,
        )


def judge(
    case: Case,
    top: Sequence[Retrieved],
    finder: Finder,
    *,
    gold_file: str,
    k: int,
    docs: Collection[str] | None = None,
    length: Callable[[str], int] = len,
    unit: str = "chars",
) -> CaseResult:
    """The verdict on ``case`` given its ``top`` results: hit, split, ranked_out or absent.

    A pure function of what came back and of ``finder`` (the corpus and its
    chunks seen through the case's match mode). ``docs`` pins the documents
    that count; ``length`` measures the span and the chunks around a cut.
    """
    retrieved = _Top.of(top, finder, docs)
    units = _units(case, finder, docs)
    context = _Context(case, units, retrieved, finder, gold_file, k, docs, length, unit)
    holding = [retrieved.holding(pattern, finder) for pattern in units.patterns]
    if _hit_in_top(units, holding, retrieved, finder):
        return _hit(context, holding)
    ranks = [found[0] if found else None for found in holding]
    locations = [finder.locate(pattern, docs) for pattern in units.patterns]
    absent = units.missing + [
        units.written[pattern]
        for pattern, where in zip(units.patterns, locations, strict=True)
        if not where.present
    ]
    verdict = decide(
        ranks, absent=bool(absent or units.outside), whole=[where.whole for where in locations]
    )
    if verdict == "hit":
        return _hit(context, holding)
    return _miss(context, verdict, holding, locations, absent)


def _hit_in_top(units: _Units, holding: Sequence[list[int]], top: _Top, finder: Finder) -> bool:
    """Whether the top k alone shows a hit: each unit held by a retrieved chunk that vouches
    for it (:meth:`Finder.vouches`), so that the corpus need not be searched."""
    if not units.patterns or units.missing or units.outside:
        return False
    return all(
        any(finder.vouches(chunk, pattern) for chunk in top.chunks(ranks))
        for pattern, ranks in zip(units.patterns, holding, strict=True)
    )


def _hit(context: _Context, holding: Sequence[list[int]]) -> CaseResult:
    """A hit's entry, from the retrieved chunks: its rank, its holders, where the span sits.

    ``holding`` gives the ranks that hold each unit. The span (or first needle)
    is placed where the first retrieved chunk that holds it has it in its
    document; with one unit, the chunk that the chunk map gives for that place
    is named among the holders, as a miss names the corpus's first holder.
    """
    patterns, finder, top = context.units.patterns, context.finder, context.top
    rank = max(ranks[0] for ranks in holding)
    holders = top.chunks(set(holding[0]).intersection(*holding[1:]))
    at = context.units.at
    if at is None:
        first = top.chunks(holding[0])
        at = finder.held_at(first[0], patterns[0]) if first else None
    if at is not None and len(patterns) == 1:
        mapped = finder.holder(at, patterns[0])
        if mapped is not None:
            holders.append(mapped)
    return context.entry(
        "hit",
        rank,
        span_split=False,
        holding_rank=rank,
        holding_ids=sorted({finder.views.id(chunk) for chunk in holders}),
        span_at=SpanAt(at.doc, at.start, at.end) if at is not None else None,
    )


def _miss(
    context: _Context,
    verdict: Verdict,
    holding: Sequence[list[int]],
    locations: Sequence[Location],
    absent: list[str],
) -> CaseResult:
    """A miss's entry: what the corpus says of the span, for the failure message and the report.

    ``holding`` gives the ranks that hold each unit, ``locations`` where the
    corpus has it, and ``absent`` what of the span it does not have.
    """
    units, finder, top, docs = context.units, context.finder, context.top, context.docs
    ranks = [found[0] if found else None for found in holding]
    split = [
        pattern
        for pattern, rank, where in zip(units.patterns, ranks, locations, strict=True)
        if rank is None and where.present and not where.whole
    ]
    where_split = [
        where
        for rank, where in zip(ranks, locations, strict=True)
        if rank is None and where.present and not where.whole
    ]
    holders = top.chunks(set(holding[0]).intersection(*holding[1:])) if holding else []
    if len(units.patterns) == 1 and locations[0].holder is not None:
        holders.append(locations[0].holder)
    at = units.at or (locations[0].occurrence if locations else None)
    return context.entry(
        verdict,
        None,
        span_split=bool(split),
        held=[
            Held(units.written[pattern], _view(finder, where.holder))
            for pattern, rank, where in zip(units.patterns, ranks, locations, strict=True)
            if verdict == "ranked_out" and rank is None
        ],
        cut=_cut(finder, where_split[0], context.length)
        if where_split and verdict == "split"
        else None,
        closest=closest(finder, finder.matcher.prepare(absent[0])) if absent else None,
        missing=absent,
        outside=units.outside,
        holding_rank=None,
        pieces_retrieved=_pieces_back(split, top, finder, docs) if verdict == "split" else None,
        holding_ids=sorted({finder.views.id(chunk) for chunk in holders}),
        span_at=SpanAt(at.doc, at.start, at.end) if at is not None else None,
        elsewhere=_elsewhere(absent, finder, docs) if absent and docs is not None else [],
    )


def deepen(
    result: CaseResult,
    case: Case,
    deeper: Sequence[Retrieved],
    finder: Finder,
    *,
    depth: int,
    docs: Collection[str] | None = None,
) -> CaseResult:
    """``result`` (a ranked_out case) with ``holding_rank`` read from a retrieval ``depth`` deep.

    It is the rank of the first chunk that holds the span (without one, the rank
    by which every needle has been held), or ``None`` when it is deeper still.
    """
    retrieved = _Top.of(deeper, finder, docs)
    units = _units(case, finder, docs)
    ranks = [retrieved.first_rank(pattern, finder) for pattern in units.patterns]
    if not ranks or any(rank is None for rank in ranks):
        return replace(result, depth=depth)
    found = max(rank for rank in ranks if rank is not None)
    holder = deeper[found - 1].chunk
    extra = [finder.views.id(holder)] if holder is not None and len(units.patterns) == 1 else []
    return replace(
        result,
        holding_rank=found,
        depth=depth,
        holding_ids=sorted({*result.holding_ids, *extra}),
    )


def _counts(chunk: Chunk | None, docs: Collection[str] | None) -> bool:
    """Whether a result counts: any result without a pin; with one, chunks of the pinned docs."""
    return docs is None or (chunk is not None and chunk.doc in docs)


def _units(case: Case, finder: Finder, docs: Collection[str] | None) -> _Units:
    """What must come back whole. Only a ``{from, to}`` span reads the corpus: it is the
    shortest passage there that runs from one to the other."""
    prepare = finder.matcher.prepare
    needles = {prepare(needle): needle for needle in case.needles}
    if case.span is None:
        return _Units(list(needles), needles, None, [], None, [])
    if isinstance(case.span, str):
        span = prepare(case.span)
        return _Units([span], {span: case.span}, case.span, [], None, [])
    start, end = prepare(case.span.start), prepare(case.span.end)
    shown = f"from {case.span.start!r} to {case.span.end!r}"
    written = {start: case.span.start, end: case.span.end}
    found = finder.passage(start, end, docs)
    if found is None:
        missing = [written[part] for part in (start, end) if not finder.occurs(part, docs)]
        return _Units([], written, shown, missing or [str(case.span)], None, [])
    passage, at = found
    outside = [
        needle
        for pattern, needle in needles.items()
        if not finder.matcher.contains(passage, pattern)
    ]
    if outside:
        return _Units([], written, shown, [], at, outside)
    return _Units([passage], {passage: str(case.span)}, shown, [], at, [])


def _elsewhere(absent: list[str], finder: Finder, docs: Collection[str] | None) -> list[str]:
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


def _pieces_back(split: list[str], top: _Top, finder: Finder, docs: Collection[str] | None) -> bool:
    """Whether each split span's pieces (its parts between the cuts) all lie in top-k chunks."""
    placed = [
        result.chunk
        for result, counts in zip(top.results, top.counted, strict=True)
        if counts and result.chunk is not None
    ]
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


def _span_length(case: Case, units: _Units, finder: Finder, length: Callable[[str], int]) -> int:
    """The length of the span as written, or as found in its document; without one, the longest needle."""
    if isinstance(case.span, str):
        return length(case.span)
    if units.at is not None:
        # the document's own slice, not the folded passage: folding shortens text
        text = finder.document(units.at.doc).text
        return length(text[units.at.start : units.at.end])
    if isinstance(case.span, SpanRange):
        return length(f"{case.span.start} … {case.span.end}")
    return max(length(needle) for needle in case.needles)


def _cut(finder: Finder, location: Location, length: Callable[[str], int]) -> CutView | None:
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


def _view(finder: Finder, chunk: Chunk | None) -> ChunkView:
    return finder.views.view(chunk) if chunk is not None else ChunkView.of(None)


def _one_line(text: str) -> str:
    return text.replace("\r", " ").replace("\n", " ").replace("\t", " ")
