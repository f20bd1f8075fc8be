"""Deciding a case's verdict from what the retriever returned and where the span sits.

The unit that must come back is the case's span (every needle lies inside it),
or, without a span, each needle on its own. A hit is one top-k chunk holding
the whole span; with needles alone, every needle whole in some top-k chunk.
Only chunks of the case's pinned documents count, when it has a ``doc``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace

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
    matcher = finder.matcher
    top = list(top)
    texts = [
        finder.prepared(r.chunk) if r.chunk is not None else matcher.prepare(r.text) for r in top
    ]
    counted = [_counts(r.chunk, docs) for r in top]
    units = _units(case, finder, docs)
    ranks = [_first_rank(p, texts, counted, finder) for p in units.patterns]
    locations = {p: finder.locate(p, docs) for p in units.patterns}
    absent = units.missing + [
        units.written[p] for p, where in locations.items() if not where.present
    ]
    failed = bool(absent or units.outside)
    split = [
        p
        for p, rank in zip(units.patterns, ranks, strict=True)
        if rank is None and locations[p].present and not locations[p].whole
    ]
    hit = not failed and all(rank is not None for rank in ranks)
    verdict: Verdict = "absent" if failed else "hit" if hit else "split" if split else "ranked_out"
    rank = max(r for r in ranks if r is not None) if hit else None
    holders = [
        r.chunk
        for r, text, ok in zip(top, texts, counted, strict=True)
        if ok and r.chunk is not None and all(matcher.contains(text, p) for p in units.patterns)
    ]
    corpus_holder = locations[units.patterns[0]].holder if len(units.patterns) == 1 else None
    if corpus_holder is not None:
        holders.append(corpus_holder)
    first = units.patterns[0] if units.patterns else None
    at = units.at or (locations[first].occurrence if first is not None else None)
    return CaseResult(
        gold_file=gold_file,
        id=case.id,
        line=case.line,
        question=case.question,
        needles=list(case.needles),
        span=units.shown,
        verdict=verdict,
        rank=rank,
        span_split=bool(split)
        or any(
            r is None and where.present and not where.whole
            for r, where in zip(ranks, locations.values(), strict=True)
        ),
        k=k,
        match=matcher.mode,
        needle_lengths=[length(n) for n in case.needles],
        span_length=_span_length(case, units, finder, length),
        unit=unit,
        top=[
            finder.views.view(r.chunk, rank=r.rank, length=length)
            if r.chunk is not None
            else ChunkView.of(None, text=r.text, rank=r.rank)
            for r in top
        ],
        held=[
            Held(units.written[p], _view(finder, locations[p].holder))
            for p, r in zip(units.patterns, ranks, strict=True)
            if verdict == "ranked_out" and r is None
        ],
        cut=_cut(finder, locations[split[0]], length) if split and not failed else None,
        closest=closest(finder, matcher.prepare(absent[0])) if absent else None,
        missing=absent,
        outside=units.outside,
        holding_rank=rank,
        pieces_retrieved=_pieces_back(split, top, counted, finder, docs)
        if verdict == "split"
        else None,
        retrieved_ids=[finder.views.id(r.chunk) if r.chunk is not None else None for r in top],
        holding_ids=sorted({finder.views.id(c) for c in holders}),
        span_at=SpanAt(at.doc, at.start, at.end) if at is not None else None,
        docs=sorted(docs) if docs is not None else None,
        elsewhere=_elsewhere(absent, finder, docs) if absent and docs is not None else [],
    )


def deepen(
    result: CaseResult, case: Case, deeper: Sequence[Retrieved], finder: Finder,
    *, depth: int, docs: Collection[str] | None = None,
) -> CaseResult:  # fmt: skip
    """``result`` (a ranked_out case) with ``holding_rank`` read from a retrieval ``depth`` deep.

    It is the rank of the first chunk that holds the span (without one, the rank
    by which every needle has been held), or ``None`` when it is deeper still.
    """
    matcher = finder.matcher
    texts = [
        finder.prepared(r.chunk) if r.chunk is not None else matcher.prepare(r.text) for r in deeper
    ]
    counted = [_counts(r.chunk, docs) for r in deeper]
    units = _units(case, finder, docs)
    ranks = [_first_rank(p, texts, counted, finder) for p in units.patterns]
    if not ranks or any(r is None for r in ranks):
        return replace(result, depth=depth)
    found = max(r for r in ranks if r is not None)
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


def _first_rank(pattern: str, texts: list[str], counted: list[bool], finder: Finder) -> int | None:
    for rank, (text, ok) in enumerate(zip(texts, counted, strict=True), start=1):
        if ok and finder.matcher.contains(text, pattern):
            return rank
    return None


def _units(case: Case, finder: Finder, docs: Collection[str] | None) -> _Units:
    prepare = finder.matcher.prepare
    needles = {prepare(n): n for n in case.needles}
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
        missing = [written[p] for p in (start, end) if not finder.occurs(p, docs)]
        return _Units([], written, shown, missing or [str(case.span)], None, [])
    passage, at = found
    outside = [n for p, n in needles.items() if not finder.matcher.contains(passage, p)]
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


def _pieces_back(
    split: list[str],
    top: list[Retrieved],
    counted: list[bool],
    finder: Finder,
    docs: Collection[str] | None,
) -> bool:
    """Whether each split span's pieces (its parts between the cuts) all lie in top-k chunks."""
    placed = [r.chunk for r, ok in zip(top, counted, strict=True) if ok and r.chunk is not None]
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
        (c.start, c.end)
        for c in chunks
        if c.doc == occurrence.doc and c.start is not None and c.end is not None
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
