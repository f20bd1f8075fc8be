"""A gold file's lines in the summary: its totals, what it ran on, the chunks' geometry,
and what its spans meet there (warnings, the overlap that would keep them whole)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..chunking.geometry import Geometry, overlap_unit
from ..chunking.survival import SpanAnalysis, finding
from ..errors import counted
from ..evaluation.case_facts import CaseFact
from ..evaluation.gold_facts import GoldFacts, GoldInfo
from ..evaluation.results import Totals
from .terminal import Line, percent, rate

WORST_SPLITS = 5  # split cases named per gold file without -v


def gold_file_lines(
    path: str,
    info: GoldInfo | None,
    results: Iterable[CaseFact],
    *,
    analysis: SpanAnalysis | None = None,
    verbose: bool = False,
    same_setup_as: str | None = None,
) -> list[Line]:
    """The summary lines of one gold file: totals; corpus, chunker and retriever; geometry.

    Warnings start with ``!`` and are of kind ``warning``; ``verbose`` adds chunk sizes, the full overlap
    range and the recommendation even when no span was split. A file whose
    setup lines (``setup_lines``) an earlier one already said names that file
    (``same_setup_as``) instead of saying them again.
    """
    results = list(results)
    totals = Totals.of(results)
    if info is not None and "error" in info:
        return [Line("info", f"{path}: not evaluated: {info['error'].splitlines()[0]}")]
    lines = [Line("info", f"{path}: {rate(totals)}, split spans {totals.split_spans}")]
    if info is None:
        return lines
    spans = _spans_text(analysis, info["unit"])
    if same_setup_as is None:
        corpus, geometry, *more = setup_lines(info, verbose=verbose)
        with_spans = geometry.text + (f"; {spans}" if spans else "")
        lines += [corpus, Line(geometry.kind, with_spans), *more]
    else:
        said = f"  corpus, chunker, retriever and geometry as {same_setup_as}"
        lines.append(Line("info", said + (f"; {spans}" if spans else "")))
    return (
        lines
        + _span_lines(
            info["geometry"],
            analysis,
            info["unit"],
            verbose=verbose,
            setup_said=same_setup_as is not None,
        )
        + _split_cases(results, info["unit"], verbose=verbose)
    )


def setup_lines(info: GoldFacts, *, verbose: bool = False) -> list[Line]:
    """What a gold file ran on: corpus, chunker and retriever, then the chunks' geometry.

    Gold files with the same setup have the same lines: the summary says them once.
    """
    geometry = info["geometry"]
    unit = info["unit"]
    corpus = (
        f"  corpus {info['corpus']}: {counted(info['documents'], 'doc')}, {info['corpus_chars']:,} chars; "
        f"chunker {_call(info['chunker'], info['chunker_args'])} -> {counted(info['chunks'], 'chunk')}"
        + f" (index x{geometry['index_multiplier']:.2f})"
        + f"; retriever {_call(info['retriever'], info['retriever_args'])}"
        + _reranker_text(info)
        + f", k={info['k']}"
    )
    lines = [
        Line("info", corpus),
        Line(
            "info",
            f"  geometry: {_overlap_text(geometry, verbose=verbose, units=_units(info))}",
        ),
    ]
    if verbose:
        lines.append(
            Line(
                "info",
                f"  chunk sizes p50 {geometry['size_p50']}, mean {geometry['size_mean']:g}, "
                f"max {geometry['size_max']} {unit}",
            )
        )
    if _undelivered(geometry):
        lines.append(
            Line(
                "warning",
                f"  ! configured overlap {geometry['configured_overlap']} is not delivered: "
                f"{geometry['no_overlap']} of {geometry['boundaries']} boundaries share no text",
            )
        )
    return lines


def _reranker_text(info: GoldFacts) -> str:
    """`` -> 50 candidates; reranker shop.rank:rerank``, with a second stage."""
    if "reranker" not in info:
        return ""
    return (
        f" -> {info.get('candidates', 0)} candidates; reranker "
        f"{_call(info['reranker'], info.get('reranker_args') or {})}"
    )


def _split_cases(results: list[CaseFact], unit: str, *, verbose: bool) -> list[Line]:
    """The cases whose span no chunk holds, longest span first: the worst few, or all with -v."""
    split = sorted((r for r in results if r.span_split), key=lambda r: (-r.span_length, r.id))
    if not split:
        return []
    shown = split if verbose else split[:WORST_SPLITS]
    names = ", ".join(f"{r.id} ({r.span_length} {unit})" for r in shown)
    more = len(split) - len(shown)
    return [
        Line("info", f"  split: {names}" + (f", and {more} more (-v lists them)" if more else ""))
    ]


def _undelivered(geometry: Geometry) -> bool:
    return bool(
        geometry["configured_overlap"] and geometry["boundaries"] and geometry["no_overlap"]
    )


def _units(info: GoldFacts) -> tuple[str, str] | None:
    """The units of the configured and the effective overlap, when they may differ (a
    chunker's tokens against characters); ``None`` when both are the length unit."""
    configured = overlap_unit(info["chunker"])
    if configured == info["unit"]:
        return None
    return configured or "in the chunker's units", info["unit"]


def _overlap_text(
    geometry: Geometry, *, verbose: bool, units: tuple[str, str] | None = None
) -> str:
    """The geometry line's overlap: configured and effective, each with its unit where the
    two may be counted in different ones (``units``)."""
    configured = geometry["configured_overlap"]
    units = units if configured is not None else None  # nothing to compare the effective with
    unplaced = geometry["chunks"] - geometry["placed"]
    if geometry["boundaries"]:
        effective = f"effective overlap {geometry['overlap_p50']}"
        if units is not None:
            effective += f" {units[1]}"
        if verbose or geometry["overlap_min"] != geometry["overlap_max"]:
            effective += f" (min {geometry['overlap_min']}, max {geometry['overlap_max']})"
        if configured is not None:
            named = f" {units[0]}" if units is not None else ""
            effective = f"overlap configured {configured}{named}, {effective}"
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
        f"max {analysis['length_max']} {unit}; kept whole {percent(analysis['observed_whole'])}"
    )
    if analysis["predicted_whole"] is not None:
        spans += f", predicted {percent(analysis['predicted_whole'])}"
    return spans


def _span_lines(
    geometry: Geometry,
    analysis: SpanAnalysis | None,
    unit: str,
    *,
    verbose: bool,
    setup_said: bool = False,
) -> list[Line]:
    """What the gold file's spans meet in that geometry: warnings, then what would fix them.

    A hint of the geometry alone is said with the setup, once: not again for a file whose
    setup an earlier one said (``setup_said``).
    """
    if analysis is None:
        return []
    lines = []
    too_long = analysis["longer_than_every_chunk"]
    if too_long:
        lines.append(
            Line(
                "warning",
                f"  ! {counted(len(too_long), 'span')} longer than every chunk ({analysis['largest_chunk']} {unit}): "
                f"{', '.join(too_long)}; no overlap can keep {'it' if len(too_long) == 1 else 'them'} whole, "
                "only a larger or structural chunk can",
            )
        )
    observed = analysis["observed_whole"]
    if _undelivered(geometry):
        # The same splitter would not deliver a larger overlap either.
        if not setup_said:
            lines.append(
                Line(
                    "info",
                    "  a larger overlap will not help until the chunker delivers the one configured "
                    "(a line- or separator-based splitter drops overlap it cannot place on a separator)",
                )
            )
    elif verbose or (observed is not None and observed < 1):
        lines += _recommendation(analysis, unit)
    note = finding(analysis)
    if note and (verbose or (observed is not None and observed < 1)):
        lines.append(Line("info", f"  finding: {note}"))
    return lines


def _recommendation(analysis: SpanAnalysis, unit: str) -> list[Line]:
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
    return [Line("info", "  to keep spans whole at this chunk size: " + "; ".join(parts))]


def _call(name: str, args: Mapping[str, Any]) -> str:
    if not args:
        return name
    return f"{name}(" + ", ".join(f"{key}={value!r}" for key, value in args.items()) + ")"
