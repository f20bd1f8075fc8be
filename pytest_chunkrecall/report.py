"""Rendering results for people: failure messages and the terminal summary."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .results import CaseResult, ChunkView, Totals

_WHY = {
    "split": "the span is in the corpus, but no single chunk holds it whole: chunking lost it before ranking",
    "ranked_out": "a chunk holds it whole, but the retriever did not rank that chunk in the top {k}",
    "absent": "it is not in the corpus at all: a gold-data error (fix the needle or span, or the corpus)",
}


def explain(result: CaseResult) -> str:
    """The plain-text failure message of a case that missed."""
    lines = [f"chunkrecall: {result.verdict} — {_WHY[result.verdict].format(k=result.k)}"]
    lines.append(f"  question: {result.question}")
    for needle in result.needles:
        lines.append(f"  needle:   {needle!r}")
    if result.span is not None:
        length = f" ({result.span_length} chars)" if result.span_length is not None else ""
        lines.append(f"  span:     {result.span!r}{length}")
    if result.verdict == "absent":
        lines += _absent(result)
    if result.cut is not None:
        lines += _cut(result)
    if result.holder is not None:
        lines.append(f"  held whole by {_chunk(result.holder)}, not in the top {result.k}")
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
    if cut.left is not None:
        lines.append(f"    before the cut: {_place(cut.left)} ends there")
    if cut.right is not None:
        lines.append(f"    after the cut:  {_place(cut.right)}")
    if cut.overlap is not None:
        shared = f"overlap {cut.overlap}" if cut.overlap >= 0 else f"a gap of {-cut.overlap} chars"
        lines.append(f"    the two chunks share {shared}")
    return lines


def _place(view: ChunkView) -> str:
    where = f"[{view.start}:{view.end}]" if view.start is not None else "[offsets unknown]"
    size = (
        f" ({view.end - view.start} chars)"
        if view.start is not None and view.end is not None
        else ""
    )
    return f"chunk {view.index} {where}{size}"


def _chunk(view: ChunkView) -> str:
    rank = f"{view.rank}. " if view.rank is not None else ""
    if view.doc is None:
        return f"{rank}(text that is no chunk of the corpus) {view.preview!r}"
    where = f"[{view.start}:{view.end}]" if view.start is not None else "[offsets unknown]"
    return f"{rank}{view.doc} {where} chunk {view.index}: {view.preview!r}"


def headline(totals: Totals) -> str:
    """``chunkrecall: hit-rate H/N (P%), split spans S``."""
    return (
        f"chunkrecall: hit-rate {totals.hits}/{totals.cases} ({_percent(totals.hit_rate)}), "
        f"split spans {totals.split_spans}"
    )


def verdict_counts(totals: Totals) -> str:
    """``verdicts: hit 4, split 1, ranked_out 0, absent 0``."""
    return "verdicts: " + ", ".join(f"{name} {count}" for name, count in totals.verdicts.items())


def gold_file_lines(
    path: str, info: Mapping[str, Any] | None, results: Iterable[CaseResult]
) -> list[str]:
    """The summary lines of one gold file: its totals, then its corpus, chunker and retriever."""
    totals = Totals.of(results)
    lines = [
        f"{path}: hit-rate {totals.hits}/{totals.cases} ({_percent(totals.hit_rate)}), "
        f"split spans {totals.split_spans}"
    ]
    if info is None:
        return lines
    if info.get("error"):
        lines.append(f"  not evaluated: {str(info['error']).splitlines()[0]}")
        return lines
    lines.append(
        f"  corpus {info['corpus']}: {_count(info['documents'], 'doc')}, {info['corpus_chars']:,} chars"
    )
    lines.append(
        f"  chunker {_call(info['chunker'], info['chunker_args'])} -> {_count(info['chunks'], 'chunk')}; "
        f"retriever {_call(info['retriever'], info['retriever_args'])}, k={info['k']}"
    )
    return lines


def _call(name: str, args: Mapping[str, Any]) -> str:
    if not args:
        return name
    return f"{name}(" + ", ".join(f"{key}={value!r}" for key, value in args.items()) + ")"


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


def _percent(rate: float) -> str:
    return f"{rate * 100:.1f}%"
