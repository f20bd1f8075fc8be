"""The terminal summary's run-wide lines: totals, ranks, verdicts, the sweep, the baseline."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, NamedTuple

from ..baseline.saved import Comparison
from ..errors import counted
from ..evaluation.repeat import ranks_text
from ..evaluation.results import STAGE_VERDICTS, CaseResult, ContextFigures, Totals
from ..run.fold import RunSummary
from ..run.sweep import Cheapest
from .summary import StagedFunnel

Kind = Literal[
    "headline",  # the run's hit-rate
    "info",  # what the run found: ranks, gold files, verdicts, the sweep, the comparison
    "warning",  # something to look at: a span no chunk can hold, a setup that changed
    "regression",  # a case that was a hit in the baseline and misses now
    "gate",  # the gate's decision, passed
    "gate_failed",  # the gate's decision, failed
    "error",  # cases not evaluated
    "failure",  # what failed the run
]


class Line(NamedTuple):
    """One line of the summary and what kind of line it is, which decides its emphasis."""

    kind: Kind
    text: str


def headline(totals: Totals) -> str:
    """``chunkrecall: hit-rate H/N (P%) [95% CI L-U%], split spans S``."""
    return f"chunkrecall: {rate(totals)}, split spans {totals.split_spans}"


def rate(totals: Totals) -> str:
    """``hit-rate H/N (P%) [95% CI L-U%]``: the hit rate with its Wilson score interval."""
    low, high = totals.hit_rate_ci95
    return (
        f"hit-rate {totals.hits}/{totals.cases} ({percent(totals.hit_rate)}) "
        f"[95% CI {low * 100:.1f}-{high * 100:.1f}%]"
    )


def ranks_line(totals: Totals) -> str:
    """``ranks: hit@1 61.0%, hit@3 95.3%, MRR 0.781``: the cut-offs 1, 3, 5, 10 up to the largest k."""
    shares = totals.hit_rate_at
    cutoffs = sorted({r for r in (1, 3, 5, 10) if r <= totals.largest_k} | {totals.largest_k})
    shown = [f"hit@{r} {percent(shares[str(r)])}" for r in cutoffs if str(r) in shares]
    return "ranks: " + ", ".join([*shown, f"MRR {totals.mrr:.3f}"])


def context_line(figures: ContextFigures) -> str:
    """``context: 1,180 chars a case, 640 to the answer; 0.71 hits per 1k chars``: what the
    answers cost (see :class:`ContextFigures`)."""
    unit = figures.unit
    mean = f"{figures.mean:,.0f} {unit} a case" if figures.mean is not None else "none"
    to_answer = (
        f"{figures.to_answer_mean:,.0f} to the answer"
        if figures.to_answer_mean is not None
        else "no answer came back"
    )
    per_1k = figures.hits_per_1k if figures.hits_per_1k is not None else 0.0
    return f"context: {mean}, {to_answer}; {per_1k:.2f} hits per 1k {unit}"


def verdicts_line(totals: Totals, *, expected: int = 0) -> str:
    """``verdicts: hit 4, split 1, ranked_out 0, absent 0``, and how many misses were expected.

    The verdicts of a loader's and a reranker's stage are named when a case has one.
    """
    line = "verdicts: " + ", ".join(
        f"{name} {count}"
        for name, count in totals.verdicts.items()
        if count or name not in STAGE_VERDICTS
    )
    misses = totals.cases - totals.hits
    if expected:
        line += f" ({expected} of the {counted(misses, 'miss', 'misses')} expected)"
    if totals.pieces_retrieved:
        line += (
            f"; {counted(totals.pieces_retrieved, 'split span')} came back in pieces "
            "(each piece in some top-k chunk)"
        )
    return line


def unstable_line(summary: RunSummary, *, compared: bool) -> str | None:
    """``chunkrecall: 2 unstable cases, counted at their worst: a.yaml::x (ranks seen 1,
    missed, 1), …``, or
    ``None``: every case's repeats agreed. Under quarantine, with a baseline, it says they
    were left out of the comparison."""
    count = summary.unstable_count
    if not count:
        return None
    named = ", ".join(
        f"{case.nodeid} (ranks seen {ranks_text(case.ranks_seen)}"
        + (f"; {case.varied}" if case.varied else "")
        + ")"
        for case in summary.unstable
    )
    if count > len(summary.unstable):
        named += f" and {count - len(summary.unstable):,} more"
    cases = counted(count, "unstable case")
    if not summary.quarantine:
        return f"chunkrecall: {cases}, counted at {'its' if count == 1 else 'their'} worst: {named}"
    if compared:
        return f"chunkrecall: {cases} left out of the comparison: {named}"
    expected = "an expected failure" if count == 1 else "expected failures"
    return f"chunkrecall: {cases} quarantined as {expected}: {named}"


def funnel_line(staged: StagedFunnel) -> str:
    """``funnel: 64 cases → 63 loaded → 62 kept whole by chunking → 61 in the candidates →
    58 in the top 3 (lost: 1 unparsed, 1 split, 1 ranked_out, 3 reranked_out)``."""
    steps = " → ".join(f"{step.cases:,} {step.label}" for step in staged.steps())
    lost = staged.lost()
    return "funnel: " + steps + (f" (lost: {lost})" if lost else "")


def percent(rate: float) -> str:
    """``95.3%``."""
    return f"{rate * 100:.1f}%"


def sweep_lines(
    spec: str,
    rows: Sequence[Mapping[str, Any]],
    *,
    alpha: float = 0.05,
    cheapest: Cheapest | None = None,
    unit: str = "chars",
) -> list[str]:
    """The sweep table: setting, chunks, index size, split spans, hit-rate, change, evidence,
    context to the answer; then the setting with the least context among the best.

    A row that differs from the configured setting beyond chance (Holm-adjusted exact
    McNemar p below ``alpha``) is marked ``*``.
    """
    header = (
        "setting",
        "chunks",
        "index x",
        "split spans",
        "hit-rate@k",
        "change",
        "p (Holm)",
        "to answer",
    )
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
                f"{row['hits']}/{row['cases']} ({percent(row['hit_rate'])})",
                ""
                if row["setting"] is None
                else ("error" if change is None else f"{change:+.1f} pts"),
                _evidence(row),
                _context_cell(row.get("context_to_answer_mean")),
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
    if cheapest is not None:
        lines.append(cheapest_line(cheapest, unit=unit, alpha=alpha))
    return lines + errors


def _context_cell(mean: float | None) -> str:
    """A row's mean context to the answer, or ``-``: no hit recorded one."""
    return "-" if mean is None else f"{mean:,.0f}"


def cheapest_line(cheapest: Cheapest, *, unit: str, alpha: float) -> str:
    """``least context: size=400 (512 chars to the answer); its hit rate does not differ from
    the best, size=1600 (1,930 chars), at 0.05 (exact McNemar, Holm)``."""
    head = (
        f"  least context: {cheapest.label} ({cheapest.to_answer_mean:,.0f} {unit} to the answer)"
    )
    if cheapest.label == cheapest.best:
        others = len(cheapest.tied) - 1
        return head + (
            f"; it has the best hit rate, and none of the {others} "
            f"{'setting' if others == 1 else 'settings'} whose hit rate does not differ from it "
            "reads less"
            if others
            else "; it has the best hit rate, and every other setting's is lower beyond chance"
        )
    best_cost = cheapest.best_to_answer_mean
    shown = f", {best_cost:,.0f} {unit}" if best_cost is not None else ""
    return (
        f"{head}; its hit rate does not differ from the best, {cheapest.best}{shown}, "
        f"at {alpha:g} (exact two-sided McNemar on the same cases, Holm p={cheapest.p_holm:.3g})"
    )


def holm_cell(row: Mapping[str, Any]) -> str:
    """A sweep row's Holm-adjusted p as the sweep tables show it: ``0.031 *`` where it differs
    from the configured setting, ``0.500`` where it does not, empty for the configured row."""
    p = row.get("p_holm")
    if p is None or row.get("setting") is None:
        return ""
    return (f"{p:.3f}" if p >= 0.001 else "<0.001") + (" *" if row.get("significant") else "")


def _evidence(row: Mapping[str, Any]) -> str:
    cell = holm_cell(row)
    # the digits of a row without a star stay in line with those of a row with one
    return cell if not cell or row.get("significant") else cell + "  "


def comparison_lines(
    name: str,
    comparison: Comparison,
    *,
    updating: bool,
    note: Callable[[CaseResult], str] = lambda result: "",
) -> list[Line]:
    """What changed against the baseline: counts, then each regression, improvement, new and
    removed case; ``note`` adds to a regression's line (say, that its document changed)."""
    counts = (
        f"{counted(len(comparison.regressions), 'regression')}, "
        f"{counted(len(comparison.improvements), 'improvement')}, "
        f"{counted(len(comparison.known_misses), 'known miss', 'known misses')}, "
        f"{len(comparison.new)} new, {len(comparison.removed)} removed"
    )
    before = " (before this update)" if updating else ""
    lines = [Line("info", f"chunkrecall baseline {name}{before}: {counts}")]
    for result, entry in comparison.regressions:
        lines.append(
            Line(
                "regression",
                f"  regression {result.gold_file}::{result.id}: {entry} -> {result}{note(result)}",
            )
        )
    for case, entry in comparison.improvements:
        lines.append(Line("info", f"  improvement {case.gold_file}::{case.id}: {entry} -> {case}"))
    for case in comparison.stage_changes:
        lines.append(
            Line(
                "info",
                f"  stage changed {case.gold_file}::{case.id}: ranked_out -> reranked_out "
                "(the first stage now finds it and the reranker drops it: not a regression)",
            )
        )
    for case in comparison.new:
        lines.append(Line("info", f"  new {case.gold_file}::{case.id}: {case}"))
    for nodeid in comparison.removed:
        lines.append(Line("info", f"  removed {nodeid}"))
    return lines
