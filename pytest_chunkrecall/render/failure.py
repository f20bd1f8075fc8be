"""A case's failure message: plain text that says what missed, where the cut fell, what came back.

The message survives xdist as it is (it travels on the report as text).
"""

from __future__ import annotations

from ..baseline.drift import DOCUMENT_CHANGED
from ..errors import printable, shown, trimmed
from ..evaluation.results import CaseResult, ChunkView, Leak
from ..evaluation.verdicts import KINDS

_WHY = {kind.name: kind.why for kind in KINDS if not kind.passes}
_WHY_FIRST_STAGE = (
    "a chunk holds it whole, but the retriever did not rank that chunk in its {candidates} "
    "candidates for the reranker: the first stage lost it"
)
_WHY_PINNED = "it is not in the documents the case's doc names: a gold-data error (fix the doc, the needle or the span)"
_WHY_OUTSIDE = "the span was found, but a needle is not inside it: a gold-data error (fix the needle or the span)"
_OTHER_DOCUMENTS = 5  # documents named for a needle that several documents hold


def explain(result: CaseResult) -> str:
    """The plain-text failure message of a case that missed."""
    lines = [f"chunkrecall: {line}" for line in _headlines(result)]
    lines += _asked(result)
    lines += _must_not(result) + _alternatives(result)
    if result.verdict == "absent":
        lines += _absent(result)
    if result.loading is not None:
        lines += _unparsed(result)
    lines += _not_checked(result)
    if result.cut is not None:
        lines += _cut(result)
    for held in result.held:
        what = "the span" if result.span is not None else repr(held.pattern)
        lines.append(
            f"  {what} is held whole by {_chunk(held.chunk)}, which is not in the top {result.k}"
        )
    if result.glued is not None and result.loading is None:  # a loss shows the loaded text
        lines += _glued(result)
    if result.verdict == "ranked_out":
        lines.append(f"  {_how_deep(result)}")
        lines += _also_holding(result)
    if result.verdict == "reranked_out" and result.candidate_rank is not None:
        lines.append(f"  {_candidate(result)}")
    if result.pieces_retrieved:
        lines.append(
            "  every piece of the span came back in the top k, in separate chunks: a reader "
            "given those chunks could join them, but no single chunk answers"
        )
    lines.append(_top_heading(result))
    lines += [f"    {_chunk(view)}" for view in result.top] or [
        "    (the retriever returned nothing)"
    ]
    return "\n".join(lines)


def _asked(result: CaseResult) -> list[str]:
    """What the case asks: its question, its needles, its span and the documents it names."""
    lines = [f"  question: {printable(trimmed(result.question))}"]
    for needle in result.needles:
        lines.append(f"  needle:   {shown(needle)}")
    if result.span is not None:
        lines.append(f"  span:     {shown(result.span)} ({result.span_length} {result.unit})")
    if result.docs is not None:
        lines.append(f"  doc:      {printable(', '.join(result.docs))}")
    return lines


def _not_checked(result: CaseResult) -> list[str]:
    """The reference texts that could not be read; a loader's traceback is shown as its lines."""
    lines = []
    for note in result.reference_notes:
        first, *rest = note.splitlines() or [""]
        lines.append(f"  not checked: {printable(first)}")
        lines += [f"    {printable(line)}" for line in rest]
    return lines


def _candidate(result: CaseResult) -> str:
    """Where the first stage ranked the chunk that the reranker dropped."""
    score = (
        f", first-stage score {result.candidate_score:.4g}"
        if result.candidate_score is not None
        else ""
    )
    return (
        f"the chunk that holds it was candidate {result.candidate_rank} of "
        f"{result.candidates}{score}; the reranker's stage dropped it"
    )


def _top_heading(result: CaseResult) -> str:
    """``  top 3 (normalized match):``, and how many of them a budget let the case read."""
    within = (
        f", {_count(len(result.top), 'chunk')} within the budget of {result.budget:,} {result.unit}"
        if result.budget is not None
        else ""
    )
    return f"  top {result.k} ({result.match} match{within}):"


def reason(result: CaseResult) -> str:
    """The failure message's first line in one line, without its ``chunkrecall:``: what the
    Markdown's list of failing cases says of each."""
    return _headlines(result)[0]


def _headlines(result: CaseResult) -> list[str]:
    """That the case regressed, if it did; then its verdict and what the verdict means."""
    lines = []
    was = result.baseline
    if was is not None and was.change == "regression":
        then = f"a hit at rank {was.rank}" if was.verdict == "hit" else f"{was.verdict}"
        lines.append(
            f"regression — {then} in the baseline, now {result.verdict}"
            + (f" ({DOCUMENT_CHANGED})" if was.document_changed else "")
        )
    why = _WHY[result.verdict].format(k=result.k, reranker=result.reranker)
    if result.verdict == "ranked_out" and result.reranker is not None:
        why = _WHY_FIRST_STAGE.format(candidates=result.candidates)
    if result.verdict == "absent" and result.outside and not result.missing:
        why = _WHY_OUTSIDE
    elif result.verdict == "absent" and result.docs is not None:
        why = _WHY_PINNED
    lines.append(f"{result.verdict} — {why}")
    return lines


def _how_deep(result: CaseResult) -> str:
    """Where the chunk that holds the span ranks: inside the top k past the budget, or
    from the deeper retrieval."""
    if result.past_budget_rank is not None:
        return (
            f"the chunk that holds it ranks {_ordinal(result.past_budget_rank)}, inside the "
            f"top {result.k} but past the budget of {result.budget:,} {result.unit}"
        )
    if result.holding_rank is not None:
        return f"the chunk that holds it ranks {_ordinal(result.holding_rank)} (k = {result.k})"
    if result.depth_error is not None:
        return f"where it ranks is unknown: asking for the top {result.depth} failed: {result.depth_error}"
    if result.depth is not None:
        return f"the chunk that holds it is not within the top {result.depth}"
    return "where it ranks was not looked for (chunkrecall_depth is off)"


def _also_holding(result: CaseResult) -> list[str]:
    """For one unpinned needle without a span: the other documents with a chunk that holds it.

    A short needle ("15 minutes") is often said by several documents; the
    chunk named as holding it may be an off-topic one, and a ``doc:`` pin is
    what makes the case ask for the document that answers.
    """
    if result.span is not None or result.docs is not None or len(result.needles) != 1:
        return []
    shown_doc = {held.chunk.doc for held in result.held}
    chunks: dict[str, int] = {}
    for chunk_id in result.holding_ids:
        doc = chunk_id.rpartition("#")[0]
        if doc not in shown_doc:
            chunks[doc] = chunks.get(doc, 0) + 1
    if not chunks:
        return []
    named = [f"{printable(doc)} ({_count(count, 'chunk')})" for doc, count in chunks.items()]
    more = len(named) - _OTHER_DOCUMENTS
    listed = ", ".join(named[:_OTHER_DOCUMENTS]) + (
        f" and {_count(more, 'other document')}" if more > 0 else ""
    )
    return [
        f"  the needle also occurs in {listed}; pin the case with doc: if only one document answers"
    ]


def _glued(result: CaseResult) -> list[str]:
    """A retrieved chunk holds the missed unit with its spaces lost: the loader joined two
    cells or lines, and a chunk elsewhere that says the needle may stand in for this one."""
    glued = result.glued
    assert glued is not None
    what = "the span" if result.span is not None else shown(glued.pattern)
    lines = [
        f"  a retrieved chunk (rank {glued.rank}) holds {what} glued: {shown(glued.text)}; "
        "the loader may have joined two cells"
    ]
    if result.docs is None and result.verdict in ("ranked_out", "reranked_out"):
        lines.append(
            "  pin the case with doc: to the document that answers, so that another "
            "document that says it does not stand in for it"
        )
    return lines


def _ordinal(number: int) -> str:
    suffix = (
        "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    )
    return f"{number}{suffix}"


def _absent(result: CaseResult) -> list[str]:
    lines = []
    where = "in the documents doc names" if result.docs is not None else "in the corpus"
    if result.missing:
        lines.append(f"  not {where}: {', '.join(shown(m) for m in result.missing)}")
    for needle in result.outside:
        lines.append(f"  the needle {needle!r} is not inside the span as found")
    if result.elsewhere:
        lines.append(f"  it occurs in: {printable(', '.join(result.elsewhere))}")
    closest = result.closest
    if closest is not None and closest.text:
        lines.append(
            f"  closest text: {shown(closest.text)} in {printable(str(closest.doc))} chunk {closest.index} "
            f"(similarity {closest.score:g}/100)"
        )
    also = [other for other in result.also_close if other.text]
    if also:
        lines.append(
            "  also close: "
            + "; ".join(
                f"{shown(other.text)} in {printable(str(other.doc))} chunk {other.index} "
                f"(similarity {other.score:g}/100)"
                for other in also
            )
        )
    return lines


def _unparsed(result: CaseResult) -> list[str]:
    """Where the reference text has what the loader lost, and what the loaded text has there."""
    loss = result.loading
    assert loss is not None
    doc = printable(loss.doc)
    lines = [
        f"  lost by the loader: {shown(loss.pattern)} in {doc}",
        f"    reference text of {doc}: {shown(loss.reference)}",
    ]
    if loss.loaded_chars == 0:
        lines.append(f"    loaded text of {doc}: empty (the loader returned no text for it)")
    elif loss.loaded is None:
        lines.append(f"    loaded text of {doc}: nothing like it")
    else:
        lines.append(
            f"    loaded text of {doc}, closest: {shown(loss.loaded)} "
            f"(similarity {loss.loaded_score:g}/100)"
        )
    return lines


def _cut(result: CaseResult) -> list[str]:
    cut = result.cut
    assert cut is not None
    lines = [
        f"  cut at {printable(cut.doc)} offset {cut.offset}: "
        f"…{printable(cut.before)}|{printable(cut.after)}…"
    ]
    if cut.left is None:
        lines.append("    no chunk holds the text where the span starts (the chunker left it out)")
    if cut.left is not None:
        lines.append(f"    before the cut: {_place(cut.left, result.unit)} ends there")
    if cut.right is not None:
        lines.append(f"    after the cut:  {_place(cut.right, result.unit)}")
    if cut.overlap is not None:
        if cut.overlap > 0:
            lines.append(f"    the two chunks overlap by {_count(cut.overlap, 'char')}")
        elif cut.overlap == 0:
            lines.append("    the two chunks do not overlap")
        else:
            lines.append(
                f"    the two chunks leave a gap of {_count(-cut.overlap, 'char')} that no chunk holds"
            )
    sizes = [
        view.size for view in (cut.left, cut.right) if view is not None and view.size is not None
    ]
    length, unit = result.span_length, result.unit
    if sizes and length > max(sizes):
        lines.append(
            f"    the span ({length} {unit}) is longer than the chunks around the cut ({max(sizes)} {unit}): "
            "no overlap can keep it whole; only a larger or structural chunk can"
        )
    else:
        lines.append(
            f"    an overlap of at least {length} {unit} (the span's length) keeps a span this long "
            "whole wherever the cut falls"
        )
    return lines


def _alternatives(result: CaseResult) -> list[str]:
    """Each alternative's verdict of a case with ``any_of``, on one line."""
    if result.alternatives is None:
        return []
    each = ", ".join(f"{number}: {verdict}" for number, verdict in enumerate(result.alternatives))
    return [f"  any_of:   {each} (the needle above is alternative {result.alternative}'s)"]


def _must_not(result: CaseResult) -> list[str]:
    """What must not come back, and each chunk that did."""
    lines = [f"  must not: {shown(text)}" for text in result.must_not or []]
    if result.must_not_docs:
        lines.append(f"  must not come from: {printable(', '.join(result.must_not_docs))}")
    return lines + [_leak(leak) for leak in result.leaks or []]


def _leak(leak: Leak) -> str:
    """A chunk that leaked: its rank, the chunk, and what it holds that must not come back."""
    what = (
        f"holds must_not {shown(leak.text)}"
        if leak.text is not None
        else f"comes from must_not_doc {printable(leak.doc or '?')}"
    )
    chunk = printable(leak.chunk) if leak.chunk is not None else "a result that is no chunk"
    return f"  leaked at rank {leak.rank}: {chunk} {what}: {shown(leak.preview)}"


def _place(view: ChunkView, unit: str) -> str:
    where = f"[{view.start}:{view.end}]" if view.start is not None else "[offsets unknown]"
    size = f" ({view.size} {unit})" if view.size is not None else ""
    return f"chunk {view.index} {where}{size}"


def _chunk(view: ChunkView) -> str:
    rank = f"{view.rank}. " if view.rank is not None else ""
    if view.doc is None:
        return f"{rank}(text that is no chunk of the corpus) {view.preview!r}"
    where = f"[{view.start}:{view.end}]" if view.start is not None else "[offsets unknown]"
    return f"{rank}{printable(view.doc)} {where} chunk {view.index}: {view.preview!r}"


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun if number == 1 else noun + 's'}"
