"""Rendering results for people: failure messages and the terminal summary."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .baseline import Comparison
from .errors import shown, trimmed
from .results import CaseResult, ChunkView, Totals
from .spans import finding

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
        )
    lines.append(f"chunkrecall: {result.verdict} — {_WHY[result.verdict].format(k=result.k)}")
    lines.append(f"  question: {trimmed(result.question)}")
    for needle in result.needles:
        lines.append(f"  needle:   {shown(needle)}")
    if result.span is not None:
        lines.append(f"  span:     {shown(result.span)} ({result.span_length} {result.unit})")
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
    lines = [f"  not in the corpus: {', '.join(shown(m) for m in result.missing)}"]
    closest = result.closest
    if closest is not None and closest.text:
        lines.append(
            f"  closest text: {shown(closest.text)} in {closest.doc} chunk {closest.index} "
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


def headline(totals: Totals) -> str:
    """``chunkrecall: hit-rate H/N (P%), split spans S``."""
    return (
        f"chunkrecall: hit-rate {totals.hits}/{totals.cases} ({_percent(totals.hit_rate)}), "
        f"split spans {totals.split_spans}"
    )


def verdict_counts(totals: Totals, *, expected: int = 0) -> str:
    """``verdicts: hit 4, split 1, ranked_out 0, absent 0``, and how many misses were expected."""
    line = "verdicts: " + ", ".join(f"{name} {count}" for name, count in totals.verdicts.items())
    misses = totals.cases - totals.hits
    if expected:
        line += f" ({expected} of the {_count(misses, 'miss', 'misses')} expected)"
    return line


def gold_file_lines(
    path: str,
    info: Mapping[str, Any] | None,
    results: Iterable[CaseResult],
    *,
    analysis: Mapping[str, Any] | None = None,
    verbose: bool = False,
) -> list[str]:
    """The summary lines of one gold file: totals; corpus, chunker and retriever; geometry.

    Warnings start with ``!``; ``verbose`` adds chunk sizes, the full overlap
    range and the recommendation even when no span was split.
    """
    totals = Totals.of(results)
    if info is not None and info.get("error"):
        return [f"{path}: not evaluated: {str(info['error']).splitlines()[0]}"]
    lines = [
        f"{path}: hit-rate {totals.hits}/{totals.cases} ({_percent(totals.hit_rate)}), "
        f"split spans {totals.split_spans}"
    ]
    if info is None:
        return lines
    geometry = info.get("geometry") or {}
    unit = info.get("unit", "chars")
    lines.append(
        f"  corpus {info['corpus']}: {_count(info['documents'], 'doc')}, {info['corpus_chars']:,} chars; "
        f"chunker {_call(info['chunker'], info['chunker_args'])} -> {_count(info['chunks'], 'chunk')}"
        + (f" (index x{geometry['index_multiplier']:.2f})" if geometry else "")
        + f"; retriever {_call(info['retriever'], info['retriever_args'])}, k={info['k']}"
    )
    if geometry:
        lines += _geometry_lines(geometry, analysis or {}, unit, verbose=verbose)
    return lines


def _geometry_lines(
    geometry: Mapping[str, Any], analysis: Mapping[str, Any], unit: str, *, verbose: bool
) -> list[str]:
    lines = []
    configured = geometry.get("configured_overlap")
    unplaced = geometry["chunks"] - geometry["placed"]
    if geometry["boundaries"]:
        effective = f"effective overlap {geometry['overlap_p50']}"
        if verbose or geometry["overlap_min"] != geometry["overlap_max"]:
            effective += f" (min {geometry['overlap_min']}, max {geometry['overlap_max']})"
        if configured is not None:
            effective = f"overlap configured {configured}, {effective}"
        without = f"{geometry['no_overlap']} of {geometry['boundaries']} boundaries without"
        if geometry["gaps"]:
            without += f" ({geometry['gaps']} leave a gap)"
        overlap = f"{effective}; {without}"
    else:
        overlap = "no boundaries between placed chunks"
    if unplaced:
        overlap += f"; offsets unknown for {unplaced} of {geometry['chunks']} chunks (not measured)"
    spans = ""
    if analysis.get("spans"):
        spans = (
            f"; spans p50 {analysis['length_p50']}, p90 {analysis['length_p90']}, "
            f"max {analysis['length_max']} {unit}; kept whole {_percent(analysis['observed_whole'])}"
        )
        if analysis.get("predicted_whole") is not None:
            spans += f", predicted {_percent(analysis['predicted_whole'])}"
    lines.append(f"  geometry: {overlap}{spans}")
    if verbose:
        lines.append(
            f"  chunk sizes p50 {geometry['size_p50']}, mean {geometry['size_mean']:g}, "
            f"max {geometry['size_max']} {unit}"
        )
    if configured and geometry["boundaries"] and geometry["no_overlap"]:
        lines.append(
            f"  ! configured overlap {configured} is not delivered: {geometry['no_overlap']} of "
            f"{geometry['boundaries']} boundaries share no text"
        )
    too_long = analysis.get("longer_than_every_chunk") or []
    if too_long:
        lines.append(
            f"  ! {_count(len(too_long), 'span')} longer than every chunk ({analysis['largest_chunk']} {unit}): "
            f"{', '.join(too_long)}; no overlap can keep {'it' if len(too_long) == 1 else 'them'} whole, "
            "only a larger or structural chunk can"
        )
    observed = analysis.get("observed_whole")
    if verbose or (observed is not None and observed < 1):
        lines += _recommendation(analysis, unit)
    note = finding(analysis)
    if note and (verbose or (observed is not None and observed < 1)):
        lines.append(f"  finding: {note}")
    return lines


def _recommendation(analysis: Mapping[str, Any], unit: str) -> list[str]:
    if analysis.get("predicted_whole") is None:
        return []
    parts = []
    for name, label in (("p90", "p90 spans"), ("all", "all spans")):
        overlap = analysis.get(f"recommended_overlap_{name}")
        longest = analysis["length_p90" if name == "p90" else "length_max"]
        if overlap is None:
            parts.append(
                f"{label}: no overlap can (length {longest}, median chunk {analysis['size']})"
            )
        elif overlap <= analysis["overlap"]:
            parts.append(
                f"{label}: the current overlap {analysis['overlap']} already does (length {longest})"
            )
        else:
            growth = analysis[f"growth_{name}"]
            parts.append(f"{label}: overlap {overlap} {unit} (index grows x{growth:g})")
    return ["  to keep spans whole at this chunk size: " + "; ".join(parts)]


def _call(name: str, args: Mapping[str, Any]) -> str:
    if not args:
        return name
    return f"{name}(" + ", ".join(f"{key}={value!r}" for key, value in args.items()) + ")"


def _count(number: int, noun: str, plural: str | None = None) -> str:
    return f"{number:,} {noun if number == 1 else plural or noun + 's'}"


def _percent(rate: float) -> str:
    return f"{rate * 100:.1f}%"


def sweep_lines(spec: str, rows: list[Mapping[str, Any]]) -> list[str]:
    """The sweep table: setting, chunks, index size, split spans, hit-rate, change."""
    header = ("setting", "chunks", "index x", "split spans", "hit-rate@k", "change")
    table = [header]
    errors = []
    for row in rows:
        errors += [f"  {row['label']}: {error}" for error in row["errors"]]
        change = row["change_points"]
        table.append(
            (
                row["label"],
                f"{row['chunks']:,}",
                f"{row['index_multiplier']:.2f}",
                str(row["split_spans"]),
                f"{row['hits']}/{row['cases']} ({_percent(row['hit_rate'])})",
                ""
                if row["setting"] is None
                else ("error" if change is None else f"{change:+.1f} pts"),
            )
        )
    widths = [max(len(line[i]) for line in table) for i in range(len(header))]
    lines = [f"chunkrecall sweep {spec!r}:"]
    for line in table:
        cells = [line[0].ljust(widths[0])] + [
            cell.rjust(width) for cell, width in zip(line[1:], widths[1:], strict=True)
        ]
        lines.append("  " + "  ".join(cells).rstrip())
    return lines + errors


def comparison_lines(name: str, comparison: Comparison, *, updating: bool) -> list[str]:
    """What changed against the baseline: counts, then each regression, improvement, new and removed case."""
    counts = (
        f"{_count(len(comparison.regressions), 'regression')}, "
        f"{_count(len(comparison.improvements), 'improvement')}, "
        f"{_count(len(comparison.known_misses), 'known miss', 'known misses')}, "
        f"{len(comparison.new)} new, {len(comparison.removed)} removed"
    )
    lines = [f"chunkrecall baseline {name}{' (before this update)' if updating else ''}: {counts}"]
    for result, entry in comparison.regressions:
        lines.append(f"  regression {result.gold_file}::{result.id}: {entry} -> {result}")
    for result, entry in comparison.improvements:
        lines.append(f"  improvement {result.gold_file}::{result.id}: {entry} -> {result}")
    for result in comparison.new:
        lines.append(f"  new {result.gold_file}::{result.id}: {result}")
    for nodeid in comparison.removed:
        lines.append(f"  removed {nodeid}")
    return lines


def comparison_json(comparison: Comparison) -> dict[str, Any]:
    """The comparison with the baseline, for the JSON report."""

    def ids(results: Iterable[CaseResult]) -> list[str]:
        return [f"{r.gold_file}::{r.id}" for r in results]

    return {
        "regressions": ids(r for r, _ in comparison.regressions),
        "improvements": ids(r for r, _ in comparison.improvements),
        "known_misses": ids(comparison.known_misses),
        "new": ids(comparison.new),
        "removed": list(comparison.removed),
        "common_cases": comparison.common,
        "baseline_hits": comparison.baseline_hits,
        "hits": comparison.current_hits,
        "drop_points": round(comparison.drop_points, 4),
    }
