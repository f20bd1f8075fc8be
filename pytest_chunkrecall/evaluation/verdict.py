"""Deciding a case's verdict from what the retriever returned, and explaining a miss.

The unit that must come back is the case's span (every needle lies inside it),
or, without a span, each needle on its own. A hit is one top-k chunk holding
the whole span; with needles alone, every needle whole in some top-k chunk.
Only chunks of the case's pinned documents count, when it has a ``doc``.

A hit is decided from the retrieved chunks alone, as a hand-written
``needle in chunk`` test decides it. The corpus is searched to explain a miss:
is the span in it at all (absent), whole in some chunk (ranked_out), or cut by
a boundary (split)? A ``{from, to}`` span is the shortest such passage of the
corpus, so finding it reads the corpus. A miss's entry lists each chunk of the
corpus that holds the span (``holding_ids``), which an IR measure of recall
needs; a hit's lists them too only when asked (``every_holder``: an output
such as the JSON report shows them), since finding them reads the corpus, and
otherwise the retrieved chunks that hold it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..chunking.chunk import Chunk
from ..gold import Case, SpanRange
from ..retrieval.shapes import Retrieved
from .closest import closest, closest_in
from .explanation import cut_view, elsewhere, glued, held_view, pieces_retrieved
from .finder import Finder, Location
from .reference import Reference
from .results import (
    CaseResult,
    ChunkView,
    Held,
    Leak,
    LoadingLoss,
    NearestText,
    SpanAt,
    Verdict,
    preview,
)
from .units import TopK, Units, first_holding, holding_rank, units_of
from .verdicts import DECIDED_IN


def decide(
    ranks: Sequence[int | None],
    *,
    absent: bool,
    whole: Sequence[bool],
    candidate_ranks: Sequence[int | None] | None = None,
    unparsed: bool = False,
    leaked: bool = False,
) -> Verdict:
    """The verdict, from each unit's first rank in the top k and what the corpus says of a miss.

    ``absent``: a unit, or a part of the span, is not in the corpus; ``unparsed``:
    what the loaded corpus lacks, the reference text of a source file has (the
    loader lost it); ``whole[i]``: some chunk of the corpus holds unit ``i`` whole;
    ``candidate_ranks[i]`` (with a reranker): unit ``i``'s first rank among the
    first stage's candidates; ``leaked``: a top-k chunk holds what must not come back,
    which wins over every other verdict. The first stage that lost the case decides:
    loading, then chunking, then the candidates, then the reranker. Each verdict's
    condition is asked in its :attr:`~.verdicts.VerdictKind.precedence`; the first
    that holds is the verdict.
    """
    in_top_k = all(rank is not None for rank in ranks)
    first_stage = candidate_ranks if candidate_ranks is not None else ranks
    holds: dict[Verdict, bool] = {
        "leaked": leaked,
        "unparsed": unparsed,
        "absent": absent,
        "hit": in_top_k,
        "split": any(rank is None and not held for rank, held in zip(ranks, whole, strict=True)),
        "ranked_out": not all(rank is not None for rank in first_stage),
        "reranked_out": True,  # the candidates held it, and the top k does not
    }
    return next(verdict for verdict in DECIDED_IN if holds[verdict])


@dataclass(frozen=True)
class _Context:
    """What every entry of a case records, whatever its verdict."""

    case: Case
    units: Units
    top: TopK
    finder: Finder
    gold_file: str
    k: int
    docs: Collection[str] | None
    length: Callable[[str], int]
    unit: str
    every_holder: bool
    leaks: tuple[Leak, ...] = ()
    names_must_not: bool = False  # the case has must_not or must_not_doc

    def entry(self, verdict: Verdict, rank: int | None, **details: Any) -> CaseResult:
        """The case's result with ``verdict``, ``rank`` and the ``details`` of its verdict."""
        case, finder, length = self.case, self.finder, self.length
        top = [
            finder.views.view(result.chunk, rank=result.rank, length=length)
            if result.chunk is not None
            else ChunkView.of(None, text=result.text, rank=result.rank)
            for result in self.top.results
        ]
        sizes = [
            view.size if view.size is not None else length(result.text)
            for view, result in zip(top, self.top.results, strict=True)
        ]
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
            top=top,
            retrieved_ids=[
                finder.views.id(result.chunk) if result.chunk is not None else None
                for result in self.top.results
            ],
            docs=sorted(self.docs) if self.docs is not None else None,
            context=sum(sizes),
            context_to_answer=sum(sizes[:rank]) if rank is not None else None,
            must_not=list(case.must_not) if self.names_must_not else None,
            leaks=list(self.leaks) if self.names_must_not else None,
            filter=case.filter.to_json() if case.filter is not None else None,
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
    candidates: Sequence[Retrieved] | None = None,
    reranker: str | None = None,
    reference: Reference | None = None,
    every_holder: bool = True,
    must_not_docs: Collection[str] = frozenset(),
) -> CaseResult:
    """The verdict on ``case`` given its ``top`` results: hit, split, ranked_out, absent,
    reranked_out or, with a ``reference``, unparsed; leaked, before all of them, when a
    top-k chunk holds a ``must_not`` text or comes from one of ``must_not_docs``.

    A pure function of what came back and of ``finder`` (the corpus and its
    chunks seen through the case's match mode). ``docs`` pins the documents
    that count; ``length`` measures the span and the chunks around a cut.
    ``candidates`` are the first stage's results when the reranker named
    ``reranker`` picked ``top`` from them. ``reference`` is the source files of a
    corpus read through a loader, read only for a case whose span the corpus lacks.
    ``every_holder``: a hit lists every chunk of the corpus that holds its span,
    not only the retrieved ones (a miss always does).
    """
    context = _Context(
        case,
        units_of(case, finder, docs),
        TopK.of(top, finder, docs),
        finder,
        gold_file,
        k,
        docs,
        length,
        unit,
        every_holder,
        tuple(leaks_of(case, top, finder, must_not_docs)),
        bool(case.must_not or case.must_not_doc),
    )
    if case.negative_only:
        verdict: Verdict = "leaked" if context.leaks else "hit"
        result = context.entry(verdict, None, span_split=False)
    else:
        result = _judged(context, candidates, reference)
    if context.names_must_not:
        result = replace(result, must_not_docs=sorted(must_not_docs))
    if candidates is None:
        return result
    return replace(result, candidates=len(candidates), reranker=reranker)


def leaks_of(
    case: Case, top: Sequence[Retrieved], finder: Finder, must_not_docs: Collection[str]
) -> list[Leak]:
    """Each top-k result that holds one of the case's ``must_not`` texts (in its match mode)
    or is a chunk of one of ``must_not_docs``, in rank order, with the first thing it holds."""
    if not case.must_not and not must_not_docs:
        return []
    matcher = finder.matcher
    forbidden = [(matcher.prepare(text), text) for text in case.must_not]
    leaks: list[Leak] = []
    for result in top:
        chunk = result.chunk
        prepared = finder.prepared(chunk) if chunk is not None else matcher.prepare(result.text)
        held = next(
            (text for pattern, text in forbidden if matcher.contains(prepared, pattern)), None
        )
        from_doc = chunk is not None and chunk.doc in must_not_docs
        if held is None and not from_doc:
            continue
        leaks.append(
            Leak(
                rank=result.rank,
                chunk=finder.views.id(chunk) if chunk is not None else None,
                doc=chunk.doc if chunk is not None else None,
                text=held,
                preview=preview(chunk.text if chunk is not None else result.text),
            )
        )
    return leaks


def _judged(
    context: _Context, candidates: Sequence[Retrieved] | None, reference: Reference | None
) -> CaseResult:
    case, units, finder, docs = context.case, context.units, context.finder, context.docs
    retrieved = context.top
    holding = [retrieved.holding(pattern, finder) for pattern in units.patterns]
    if not context.leaks and _hit_in_top(units, holding, retrieved, finder):
        return _hit(context, holding)
    ranks = [found[0] if found else None for found in holding]
    locations = [finder.locate(pattern, docs) for pattern in units.patterns]
    absent = _absent(units, locations)
    candidate_ranks = _candidate_ranks(context, candidates)
    lacking = bool(absent or units.outside)
    loading: LoadingLoss | None = None
    notes: list[str] = []
    if lacking and reference is not None:
        present = {p for p, where in zip(units.patterns, locations, strict=True) if where.present}
        loading, notes = lost_in_loading(case, finder, reference, present=present, docs=docs)
    verdict = decide(
        ranks,
        absent=lacking,
        whole=[where.whole for where in locations],
        candidate_ranks=candidate_ranks,
        unparsed=loading is not None,
        leaked=bool(context.leaks),
    )
    if verdict == "hit":
        return _hit(context, holding)
    result = _miss(context, verdict, holding, locations, absent, loading=loading, notes=notes)
    if verdict != "reranked_out" or candidates is None or candidate_ranks is None:
        return result
    return _reranked_out(result, candidates, [rank or 0 for rank in candidate_ranks], finder)


def _absent(units: Units, locations: Sequence[Location]) -> list[str]:
    """What of the case (as written) the corpus does not have."""
    return units.missing + [
        units.written[pattern]
        for pattern, where in zip(units.patterns, locations, strict=True)
        if not where.present
    ]


def _candidate_ranks(
    context: _Context, candidates: Sequence[Retrieved] | None
) -> list[int | None] | None:
    """Each unit's first rank among the first stage's candidates (with a reranker), else
    ``None``."""
    patterns = context.units.patterns
    if candidates is None or not patterns:
        return None
    return [
        first_holding(candidates, pattern, context.finder, context.docs) for pattern in patterns
    ]


def _reranked_out(
    result: CaseResult, candidates: Sequence[Retrieved], ranks: Sequence[int], finder: Finder
) -> CaseResult:
    """A reranked_out case with where its holder stood among the candidates, and its score.

    The rank is the one by which every unit was held (as a hit's rank is); the
    holding rank is that rank too: the candidates are the deeper retrieval.
    """
    rank = max(ranks)
    holder = candidates[rank - 1]
    extra = [finder.views.id(holder.chunk)] if holder.chunk is not None and len(ranks) == 1 else []
    return replace(
        result,
        candidate_rank=rank,
        candidate_score=holder.score
        if holder.score is not None and math.isfinite(holder.score)
        else None,
        holding_rank=rank,
        holding_ids=sorted({*result.holding_ids, *extra}),
    )


def lost_in_loading(
    case: Case,
    finder: Finder,
    reference: Reference,
    *,
    present: Collection[str] = (),
    docs: Collection[str] | None = None,
) -> tuple[LoadingLoss | None, list[str]]:
    """What the loader lost of ``case``, when the reference text has the whole case (its
    span, or every needle) that the loaded corpus (``finder``) lacks; else the notes on
    the source files (in ``docs``) that have no reference text to check against.

    ``present`` are the case's units (prepared) that the loaded corpus does have: the
    loss shown is the first unit it does not.
    """
    notes = [note.text for note in reference.notes if docs is None or note.doc in docs]
    seen = reference.finder(finder.matcher)
    units = units_of(case, seen, docs)
    if not units.patterns or units.missing or units.outside:
        return None, notes
    places = [seen.locate(pattern, docs) for pattern in units.patterns]
    if not all(place.present for place in places):
        return None, notes
    lost = next(
        (number for number, pattern in enumerate(units.patterns) if pattern not in present), 0
    )
    pattern, occurrence = units.patterns[lost], places[lost].occurrence
    if occurrence is None:  # a corpus without chunks has places, never holders
        return None, notes
    loaded = closest_in(finder, pattern, occurrence.doc)
    text = seen.document(occurrence.doc).text
    return (
        LoadingLoss(
            pattern=units.written[pattern],
            doc=occurrence.doc,
            reference=excerpt(text, occurrence.start, occurrence.end),
            loaded=loaded.text if loaded is not None else None,
            loaded_score=loaded.score if loaded is not None else None,
            loaded_chars=len(finder.document(occurrence.doc).text),
        ),
        [],  # found: the files without reference text are no matter for this case
    )


EXCERPT_REACH = 60  # characters of reference text shown either side of a lost span


def excerpt(text: str, start: int, end: int, reach: int = EXCERPT_REACH) -> str:
    """``text[start:end]`` with up to ``reach`` characters either side, on one line, and an
    ellipsis where it was cut."""
    low, high = max(0, start - reach), min(len(text), end + reach)
    shown = " ".join(text[low:high].split())
    return ("…" if low else "") + shown + ("…" if high < len(text) else "")


def _hit_in_top(units: Units, holding: Sequence[list[int]], top: TopK, finder: Finder) -> bool:
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
    chosen = [
        found
        for ranks in holding
        if (found := top.results[ranks[0] - 1].candidate_rank) is not None
    ]
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
        holding_ids=_holding_ids(context, holders, search=context.every_holder),
        span_at=SpanAt(at.doc, at.start, at.end) if at is not None else None,
        candidate_rank=max(chosen) if chosen and len(chosen) == len(holding) else None,
    )


def _miss(
    context: _Context,
    verdict: Verdict,
    holding: Sequence[list[int]],
    locations: Sequence[Location],
    absent: list[str],
    *,
    loading: LoadingLoss | None = None,
    notes: Sequence[str] = (),
) -> CaseResult:
    """A miss's entry: what the corpus says of the span, for the failure message and the report.

    ``holding`` gives the ranks that hold each unit, ``locations`` where the
    corpus has it, and ``absent`` what of the span it does not have; ``loading``
    what the loader lost of it, and ``notes`` the source files it was not checked against.
    """
    units, finder, docs = context.units, context.finder, context.docs
    ranks = [found[0] if found else None for found in holding]
    cuts = [
        (pattern, where)
        for pattern, rank, where in zip(units.patterns, ranks, locations, strict=True)
        if rank is None and where.present and not where.whole
    ]
    at = units.at or (locations[0].occurrence if locations else None)
    close = _closest(context, absent[0]) if absent and verdict == "absent" else []
    return context.entry(
        verdict,
        None,
        span_split=bool(cuts),
        held=_held(context, verdict, ranks, locations),
        cut=cut_view(finder, cuts[0][1], context.length) if cuts and verdict == "split" else None,
        closest=close[0] if close else None,
        also_close=close[1:],
        missing=absent,
        outside=units.outside,
        holding_rank=None,
        pieces_retrieved=pieces_retrieved(
            [pattern for pattern, _ in cuts], context.top.counted_chunks(), finder, docs
        )
        if verdict == "split"
        else None,
        holding_ids=_holding_ids(context, _miss_holders(context, holding, locations), search=True),
        span_at=SpanAt(at.doc, at.start, at.end) if at is not None else None,
        elsewhere=elsewhere(absent, finder, docs) if absent and docs is not None else [],
        loading=loading,
        glued=glued(_unheld(units.patterns, ranks), units.written, context.top),
        reference_notes=list(notes),
    )


def _held(
    context: _Context, verdict: Verdict, ranks: Sequence[int | None], locations: Sequence[Location]
) -> list[Held]:
    """For a case that ranking lost, each unit the top k missed and a chunk that holds it."""
    if verdict not in ("ranked_out", "reranked_out"):
        return []
    units, finder = context.units, context.finder
    return [
        Held(units.written[pattern], held_view(finder, where.holder))
        for pattern, rank, where in zip(units.patterns, ranks, locations, strict=True)
        if rank is None
    ]


def _miss_holders(
    context: _Context, holding: Sequence[list[int]], locations: Sequence[Location]
) -> list[Chunk]:
    """The chunks known to hold a missed case's span: the retrieved ones that hold every unit,
    and, with one unit, the corpus's first holder."""
    holders = context.top.chunks(set(holding[0]).intersection(*holding[1:])) if holding else []
    if len(context.units.patterns) == 1 and locations[0].holder is not None:
        holders.append(locations[0].holder)
    return holders


def _unheld(patterns: Sequence[str], ranks: Sequence[int | None]) -> list[str]:
    """The units no top-k chunk holds whole (without a span, the needles that missed)."""
    return [pattern for pattern, rank in zip(patterns, ranks, strict=True) if rank is None]


def _closest(context: _Context, text: str) -> list[NearestText]:
    """The corpus texts most like absent ``text``; the retrieved chunks win a tie."""
    finder = context.finder
    retrieved = {chunk.index for chunk in context.top.counted_chunks() if finder.owns(chunk)}
    return closest(finder, finder.matcher.prepare(text), retrieved)


def _holding_ids(context: _Context, known: Sequence[Chunk], *, search: bool) -> list[str]:
    """The ids of the chunks that hold the whole span (without one: every needle), sorted.

    The ``known`` holders (the retrieved ones and the one where the span was
    placed, which a chunk without offsets or a fuzzy match may add) and, with
    ``search``, every chunk of the corpus that does (:meth:`Finder.holders`).
    """
    finder, patterns = context.finder, context.units.patterns
    found = {chunk.index: chunk for chunk in known}
    if search and patterns:
        every = [finder.holders(pattern, context.docs) for pattern in patterns]
        common = set.intersection(*({chunk.index for chunk in held} for held in every))
        found.update((chunk.index, chunk) for chunk in every[0] if chunk.index in common)
    return sorted({finder.views.id(chunk) for chunk in found.values()})


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
    found, units = holding_rank(case, deeper, finder, docs)
    if found is None:
        return replace(result, depth=depth)
    holder = deeper[found - 1].chunk
    extra = [finder.views.id(holder)] if holder is not None and len(units.patterns) == 1 else []
    return replace(
        result,
        holding_rank=found,
        depth=depth,
        holding_ids=sorted({*result.holding_ids, *extra}),
    )


def _span_length(case: Case, units: Units, finder: Finder, length: Callable[[str], int]) -> int:
    """The length of the span as written, or as found in its document; without one, the longest needle."""
    if isinstance(case.span, str):
        return length(case.span)
    if units.at is not None:
        # the document's own slice, not the folded passage: folding shortens text
        text = finder.document(units.at.doc).text
        return length(text[units.at.start : units.at.end])
    if isinstance(case.span, SpanRange):
        return length(f"{case.span.start} … {case.span.end}")
    return max((length(needle) for needle in case.needles), default=0)
