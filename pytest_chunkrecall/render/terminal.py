"""The terminal summary: totals, each gold file with its geometry, the sweep, the baseline."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..analysis.baseline import Comparison
from ..analysis.geometry import Geometry
from ..analysis.statistics import wilson
from ..analysis.survival import SpanAnalysis, finding
from ..evaluation.gold_facts import GoldFacts, GoldInfo
from ..evaluation.results import CaseResult, Totals


def headline(totals: Totals) -> str:
    """``chunkrecall: hit-rate H/N (P%) [95% CI L-U%], split spans S``."""
    return f"chunkrecall: {rate(totals)}, split spans {totals.split_spans}"


def rate(totals: Totals) -> str:
    """``hit-rate H/N (P%) [95% CI L-U%]``: the hit rate with its Wilson score interval."""
    low, high = wilson(totals.hits, totals.cases)
    return (
        f"hit-rate {totals.hits}/{totals.cases} ({_percent(totals.hit_rate)}) "
        f"[95% CI {low * 100:.1f}-{high * 100:.1f}%]"
    )


def ranks_line(totals: Totals) -> str:
    """``ranks: hit@1 61.0%, hit@3 95.3%, MRR 0.781``: the cut-offs 1, 3, 5, 10 up to the largest k."""
    shares = totals.hit_rate_at
    cutoffs = sorted({r for r in (1, 3, 5, 10) if r <= totals.largest_k} | {totals.largest_k})
    shown = [f"hit@{r} {_percent(shares[str(r)])}" for r in cutoffs if str(r) in shares]
    return "ranks: " + ", ".join([*shown, f"MRR {totals.mrr:.3f}"])


def verdict_counts(totals: Totals, *, expected: int = 0) -> str:
    """``verdicts: hit 4, split 1, ranked_out 0, absent 0``, and how many misses were expected."""
    line = "verdicts: " + ", ".join(f"{name} {count}" for name, count in totals.verdicts.items())
    misses = totals.cases - totals.hits
    if expected:
        line += f" ({expected} of the {_count(misses, 'miss', 'misses')} expected)"
    if totals.pieces_retrieved:
        line += (
            f"; {_count(totals.pieces_retrieved, 'split span')} came back in pieces "
            "(each piece in some top-k chunk)"
        )
    return line


WORST_SPLITS = 5  # split cases named per gold file without -v


def gold_file_lines(
    path: str,
    info: GoldInfo | None,
    results: Iterable[CaseResult],
    *,
    analysis: SpanAnalysis | None = None,
    verbose: bool = False,
    same_setup_as: str | None = None,
) -> list[str]:
    """The summary lines of one gold file: totals; corpus, chunker and retriever; geometry.

    Warnings start with ``!``; ``verbose`` adds chunk sizes, the full overlap
    range and the recommendation even when no span was split. A file whose
    setup lines (``setup_lines``) an earlier one already said names that file
    (``same_setup_as``) instead of saying them again.
    """
    results = list(results)
    totals = Totals.of(results)
    if info is not None and "error" in info:
        return [f"{path}: not evaluated: {info['error'].splitlines()[0]}"]
    lines = [f"{path}: {rate(totals)}, split spans {totals.split_spans}"]
    if info is None:
        return lines
    spans = _spans_text(analysis, info["unit"])
    if same_setup_as is None:
        corpus, geometry, *more = setup_lines(info, verbose=verbose)
        lines += [corpus, geometry + (f"; {spans}" if spans else ""), *more]
    else:
        said = f"  corpus, chunker, retriever and geometry as {same_setup_as}"
        lines.append(said + (f"; {spans}" if spans else ""))
    return (
        lines
        + _span_lines(info["geometry"], analysis, info["unit"], verbose=verbose)
        + _split_cases(results, info["unit"], verbose=verbose)
    )


def setup_lines(info: GoldFacts, *, verbose: bool = False) -> list[str]:
    """What a gold file ran on: corpus, chunker and retriever, then the chunks' geometry.

    Gold files with the same setup have the same lines: the summary says them once.
    """
    geometry = info["geometry"]
    unit = info["unit"]
    lines = [
        f"  corpus {info['corpus']}: {_count(info['documents'], 'doc')}, {info['corpus_chars']:,} chars; "
        f"chunker {_call(info['chunker'], info['chunker_args'])} -> {_count(info['chunks'], 'chunk')}"
        + f" (index x{geometry['index_multiplier']:.2f})"
        + f"; retriever {_call(info['retriever'], info['retriever_args'])}, k={info['k']}",
        f"  geometry: {_overlap_text(geometry, verbose=verbose)}",
    ]
    if verbose:
        lines.append(
            f"  chunk sizes p50 {geometry['size_p50']}, mean {geometry['size_mean']:g}, "
            f"max {geometry['size_max']} {unit}"
        )
    if _undelivered(geometry):
        lines.append(
            f"  ! configured overlap {geometry['configured_overlap']} is not delivered: "
            f"{geometry['no_overlap']} of {geometry['boundaries']} boundaries share no text"
        )
    return lines


def _split_cases(results: list[CaseResult], unit: str, *, verbose: bool) -> list[str]:
    """The cases whose span no chunk holds, longest span first: the worst few, or all with -v."""
    split = sorted((r for r in results if r.span_split), key=lambda r: (-r.span_length, r.id))
    if not split:
        return []
    shown = split if verbose else split[:WORST_SPLITS]
    names = ", ".join(f"{r.id} ({r.span_length} {unit})" for r in shown)
    more = len(split) - len(shown)
    return [f"  split: {names}" + (f", and {more} more (-v lists them)" if more else "")]


def _undelivered(geometry: Geometry) -> bool:
    return bool(
        geometry["configured_overlap"] and geometry["boundaries"] and geometry["no_overlap"]
    )


def _overlap_text(geometry: Geometry, *, verbose: bool) -> str:
    configured = geometry["configured_overlap"]
    unplaced = geometry["chunks"] - geometry["placed"]
    if geometry["boundaries"]:
        effective = f"effective overlap {geometry['overlap_p50']}"
        if verbose or geometry["overlap_min"] != geometry["overlap_max"]:
            effective += f" (min {geometry['overlap_min']}, max {geometry['overlap_max']})"
        if configured is not None:
            effective = f"overlap configured {configured}, {effective}"
        without = f"{geometry['no_overlap']} of {geometry['boundaries']} boundaries share no text"
        if geometry["gaps"]:
            without += f" ({geometry['gaps']} leave a gap)"
        overlap = f"{effective}; {without}"
    else:
        overlap = "no boundaries between placed chunks"
    nested = geometry.get("nested", 0)
    if nested:
        overlap += f"; {nested} of {geometry['chunks']} chunks lie inside another (no boundary)"
    if unplaced:
        overlap += f"; offsets unknown for {unplaced} of {geometry['chunks']} chunks (not measured)"
    return overlap


def _spans_text(analysis: SpanAnalysis | None, unit: str) -> str:
    if analysis is None or analysis["observed_whole"] is None:
        return ""
    spans = (
        f"spans p50 {analysis['length_p50']}, p90 {analysis['length_p90']}, "
        f"max {analysis['length_max']} {unit}; kept whole {_percent(analysis['observed_whole'])}"
    )
    if analysis["predicted_whole"] is not None:
        spans += f", predicted {_percent(analysis['predicted_whole'])}"
    return spans


def _span_lines(
    geometry: Geometry, analysis: SpanAnalysis | None, unit: str, *, verbose: bool
) -> list[str]:
    """What the gold file's spans meet in that geometry: warnings, then what would fix them."""
    if analysis is None:
        return []
    lines = []
    too_long = analysis["longer_than_every_chunk"]
    if too_long:
        lines.append(
            f"  ! {_count(len(too_long), 'span')} longer than every chunk ({analysis['largest_chunk']} {unit}): "
            f"{', '.join(too_long)}; no overlap can keep {'it' if len(too_long) == 1 else 'them'} whole, "
            "only a larger or structural chunk can"
        )
    observed = analysis["observed_whole"]
    if _undelivered(geometry):
        # The same splitter would not deliver a larger overlap either.
        lines.append(
            "  a larger overlap will not help until the chunker delivers the one configured "
            "(a line- or separator-based splitter drops overlap it cannot place on a separator)"
        )
    elif verbose or (observed is not None and observed < 1):
        lines += _recommendation(analysis, unit)
    note = finding(analysis)
    if note and (verbose or (observed is not None and observed < 1)):
        lines.append(f"  finding: {note}")
    return lines


def _recommendation(analysis: SpanAnalysis, unit: str) -> list[str]:
    current = analysis["overlap"]
    if analysis["predicted_whole"] is None or current is None:
        return []
    parts = []
    for label, overlap, longest, growth in (
        (
            "p90 spans",
            analysis["recommended_overlap_p90"],
            analysis["length_p90"],
            analysis["growth_p90"],
        ),
        (
            "all spans",
            analysis["recommended_overlap_all"],
            analysis["length_max"],
            analysis["growth_all"],
        ),
    ):
        if overlap is None:
            parts.append(
                f"{label}: no overlap can (length {longest}, median chunk {analysis['size']})"
            )
        elif overlap <= current:
            parts.append(f"{label}: the current overlap {current} already does (length {longest})")
        else:
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


def sweep_lines(spec: str, rows: list[Mapping[str, Any]], *, alpha: float = 0.05) -> list[str]:
    """The sweep table: setting, chunks, index size, split spans, hit-rate, change, evidence.

    A row that differs from the configured setting beyond chance (Holm-adjusted exact
    McNemar p below ``alpha``) is marked ``*``.
    """
    header = ("setting", "chunks", "index x", "split spans", "hit-rate@k", "change", "p (Holm)")
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
                _evidence(row),
            )
        )
    widths = [max(len(line[i]) for line in table) for i in range(len(header))]
    lines = [f"chunkrecall sweep {spec!r}:"]
    for line in table:
        cells = [line[0].ljust(widths[0])] + [
            cell.rjust(width) for cell, width in zip(line[1:], widths[1:], strict=True)
        ]
        lines.append("  " + "  ".join(cells).rstrip())
    if any(row.get("significant") for row in rows):
        lines.append(
            f"  * differs from the configured setting at {alpha:g} (exact two-sided McNemar on "
            f"the same cases, Holm-adjusted across {len(rows) - 1} settings)"
        )
    return lines + errors


def _evidence(row: Mapping[str, Any]) -> str:
    p = row.get("p_holm")
    if p is None or row["setting"] is None:
        return ""
    return (f"{p:.3f}" if p >= 0.001 else "<0.001") + (" *" if row["significant"] else "  ")


def comparison_lines(
    name: str,
    comparison: Comparison,
    *,
    updating: bool,
    note: Callable[[CaseResult], str] = lambda result: "",
) -> list[str]:
    """What changed against the baseline: counts, then each regression, improvement, new and
    removed case; ``note`` adds to a regression's line (say, that its document changed)."""
    counts = (
        f"{_count(len(comparison.regressions), 'regression')}, "
        f"{_count(len(comparison.improvements), 'improvement')}, "
        f"{_count(len(comparison.known_misses), 'known miss', 'known misses')}, "
        f"{len(comparison.new)} new, {len(comparison.removed)} removed"
    )
    lines = [f"chunkrecall baseline {name}{' (before this update)' if updating else ''}: {counts}"]
    for result, entry in comparison.regressions:
        lines.append(
            f"  regression {result.gold_file}::{result.id}: {entry} -> {result}{note(result)}"
        )
    for result, entry in comparison.improvements:
        lines.append(f"  improvement {result.gold_file}::{result.id}: {entry} -> {result}")
    for result in comparison.new:
        lines.append(f"  new {result.gold_file}::{result.id}: {result}")
    for nodeid in comparison.removed:
        lines.append(f"  removed {nodeid}")
    return lines
