"""A case's failure message: plain text that says what missed, where the cut fell, what came back.

The message survives xdist as it is (it travels on the report as text).
"""

from __future__ import annotations

from ..analysis.drift import DOCUMENT_CHANGED
from ..evaluation.results import CaseResult, ChunkView

_WHY = {
    "split": "the span is in the corpus, but no single chunk holds it whole: chunking lost it before ranking",
    "ranked_out": "a chunk holds it whole, but the retriever did not rank that chunk in the top {k}",
    "absent": "it is not in the corpus at all: a gold-data error (fix the needle or span, or the corpus)",
}


def explain(result: CaseResult) -> str:
    """The plain-text failure message of a case that missed."""
    lines = []
    was = result.baseline
    if was is not None and was.get("verdict") == "hit":
        lines.append(
            f"chunkrecall: regression — a hit at rank {was.get('rank')} in the baseline, now {result.verdict}"
            + (f" ({DOCUMENT_CHANGED})" if was.get("document_changed") else "")
        )
    lines.append(f"chunkrecall: {result.verdict} — {_WHY[result.verdict].format(k=result.k)}")
    lines.append(f"  question: {result.question}")
    for needle in result.needles:
        lines.append(f"  needle:   {needle!r}")
    if result.span is not None:
        lines.append(f"  span:     {result.span!r} ({result.span_length} {result.unit})")
    if result.verdict == "absent":
        lines += _absent(result)
    if result.cut is not None:
        lines += _cut(result)
    for held in result.held:
        what = "the span" if result.span is not None else repr(held.pattern)
        lines.append(
            f"  {what} is held whole by {_chunk(held.chunk)}, which is not in the top {result.k}"
        )
    lines.append(f"  top {result.k} ({result.match} match):")
    lines += [f"    {_chunk(view)}" for view in result.top] or [
        "    (the retriever returned nothing)"
    ]
    return "\n".join(lines)


def _absent(result: CaseResult) -> list[str]:
    lines = [f"  not in the corpus: {', '.join(repr(m) for m in result.missing)}"]
    closest = result.closest
    if closest is not None and closest.text:
        lines.append(
            f"  closest text: {closest.text!r} in {closest.doc} chunk {closest.index} "
            f"(similarity {closest.score:g}/100)"
        )
    return lines


def _cut(result: CaseResult) -> list[str]:
    cut = result.cut
    assert cut is not None
    lines = [f"  cut at {cut.doc} offset {cut.offset}: …{cut.before}|{cut.after}…"]
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


def _place(view: ChunkView, unit: str) -> str:
    where = f"[{view.start}:{view.end}]" if view.start is not None else "[offsets unknown]"
    size = f" ({view.size} {unit})" if view.size is not None else ""
    return f"chunk {view.index} {where}{size}"


def _chunk(view: ChunkView) -> str:
    rank = f"{view.rank}. " if view.rank is not None else ""
    if view.doc is None:
        return f"{rank}(text that is no chunk of the corpus) {view.preview!r}"
    where = f"[{view.start}:{view.end}]" if view.start is not None else "[offsets unknown]"
    return f"{rank}{view.doc} {where} chunk {view.index}: {view.preview!r}"


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun if number == 1 else noun + 's'}"
