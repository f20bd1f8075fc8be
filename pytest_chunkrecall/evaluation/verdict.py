"""Deciding a case's verdict from what the retriever returned and where the span sits."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..analysis.geometry import shared
from ..gold import Case, SpanRange
from ..retrieval.shapes import Retrieved
from ..text.matcher import Matcher
from .finder import Finder, Location
from .results import CaseResult, ChunkView, CutView, Held

_CONTEXT = 40  # characters shown either side of a cut


def judge(
    case: Case,
    top: Sequence[Retrieved],
    space: Finder,
    *,
    gold_file: str,
    k: int,
    length: Callable[[str], int] = len,
    unit: str = "chars",
) -> CaseResult:
    """The verdict on ``case`` given its ``top`` results: hit, split, ranked_out or absent.

    A pure function of what came back and of ``space`` (the corpus and its chunks
    seen through the case's match mode). ``length`` measures the span and the
    chunks around a cut (characters, or the user's tokens).
    """
    top = list(top)
    top_texts = [
        space.prepared(r.chunk) if r.chunk is not None else space.matcher.prepare(r.text)
        for r in top
    ]
    matcher = space.matcher
    needles = [matcher.prepare(n) for n in case.needles]
    ranks = [_first_rank(needle, top_texts, matcher) for needle in needles]
    span, span_text, missing = _span(case, space)
    written = {**dict(zip(needles, case.needles, strict=True)), **_written_span(case, matcher)}

    # What must be whole: the span (or, without one, every needle), and every
    # needle the top k did not return.
    patterns = ([span] if span is not None else []) + [
        n for n, rank in zip(needles, ranks, strict=True) if rank is None or span is None
    ]
    locations = {p: _locate(p, top, top_texts, space) for p in dict.fromkeys(patterns)}
    absent = missing + [p for p, where in locations.items() if not where.present]
    split = [p for p, where in locations.items() if where.present and not where.whole]
    span_patterns = [span] if span is not None else ([] if case.span is not None else needles)
    span_split = any(locations[p].present and not locations[p].whole for p in span_patterns)
    hit = all(rank is not None for rank in ranks)
    # A span that is nowhere in the corpus is a gold-data error even when the
    # needles came back: otherwise a typo would silently drop the span check.
    verdict = "absent" if absent else "hit" if hit else "split" if split else "ranked_out"

    held = [
        Held(case.needles[i], ChunkView.of(locations[needle].holder))
        for i, (needle, rank) in enumerate(zip(needles, ranks, strict=True))
        if verdict == "ranked_out" and rank is None
    ]
    cut_pattern = split[0] if split else span if span_split else None
    cut = (
        _cut(space, locations[cut_pattern], length) if cut_pattern and verdict != "absent" else None
    )
    return CaseResult(
        gold_file=gold_file,
        id=case.id,
        line=case.line,
        question=case.question,
        needles=list(case.needles),
        span=span_text,
        verdict=verdict,
        rank=max(r for r in ranks if r is not None) if verdict == "hit" else None,
        span_split=span_split,
        k=k,
        match=matcher.mode,
        needle_lengths=[len(n) for n in case.needles],
        span_length=_span_length(case, span, length),
        unit=unit,
        top=[ChunkView.of(r.chunk, text=r.text, rank=r.rank) for r in top],
        held=held,
        cut=cut,
        closest=space.closest(absent[0]) if verdict == "absent" else None,
        missing=[written.get(p, p) for p in absent],
    )


def _first_rank(needle: str, top_texts: list[str], matcher: Matcher) -> int | None:
    for rank, text in enumerate(top_texts, start=1):
        if matcher.contains(text, needle):
            return rank
    return None


def _locate(pattern: str, top: list[Retrieved], top_texts: list[str], space: Finder) -> Location:
    """Where ``pattern`` is: a top-k chunk that holds it, or else wherever the corpus has it."""
    for retrieved, text in zip(top, top_texts, strict=True):
        if retrieved.chunk is not None and space.matcher.contains(text, pattern):
            return Location(retrieved.chunk, None)
    return space.locate(pattern)


def _span(case: Case, space: Finder) -> tuple[str | None, str | None, list[str]]:
    """The span in match space, how to show it, and any part of it missing from the corpus."""
    if case.span is None:
        return None, None, []
    if isinstance(case.span, SpanRange):
        shown = f"from {case.span.start!r} to {case.span.end!r}"
        start, end = space.matcher.prepare(case.span.start), space.matcher.prepare(case.span.end)
        passage = space.passage(start, end)
        if passage is None:
            missing = [p for p in (start, end) if not space.occurrences(p)]
            return None, shown, missing or [f"{start} … {end}"]
        return passage, shown, []
    return space.matcher.prepare(case.span), case.span, []


def _written_span(case: Case, matcher: Matcher) -> dict[str, str]:
    """The span's parts in match space, mapped to how the gold file wrote them."""
    if isinstance(case.span, SpanRange):
        return {
            matcher.prepare(case.span.start): case.span.start,
            matcher.prepare(case.span.end): case.span.end,
        }
    if isinstance(case.span, str):
        return {matcher.prepare(case.span): case.span}
    return {}


def _span_length(case: Case, span: str | None, length: Callable[[str], int]) -> int:
    """The length of the span as written (a range: as found), or without one, of the longest needle."""
    if isinstance(case.span, str):
        return length(case.span)
    if span is not None:
        return length(span)
    return max(length(needle) for needle in case.needles)


def _cut(space: Finder, location: Location, length: Callable[[str], int]) -> CutView | None:
    occurrence = location.occurrence
    if occurrence is None:
        return None
    cut = space.chunk_map.cut(occurrence.doc, occurrence.start, occurrence.end)
    if cut is None or (cut.left is not None and cut.offset >= occurrence.end):
        # No boundary divides it: a chunk covers it but, in exact mode, holds
        # it only up to whitespace or case (the chunker rewrote them).
        return None
    text = space.document(occurrence.doc).text
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
        left=ChunkView.of(left, length=length) if left else None,
        right=ChunkView.of(right, length=length) if right else None,
        overlap=overlap,
    )


def _one_line(text: str) -> str:
    return text.replace("\r", " ").replace("\n", " ").replace("\t", " ")
