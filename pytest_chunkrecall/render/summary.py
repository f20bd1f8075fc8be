"""The run's section of the terminal summary, as lines with their emphasis.

A pytest run writes them through its terminal reporter; ``compare`` prints them:
the same lines either way.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..baseline.gating import GateOutcome, regression_note
from ..evaluation.results import Totals
from ..run.record import RunRecord
from . import gold_file, terminal

Style = Literal["plain", "bold", "red", "red_bold", "yellow"]


@dataclass(frozen=True)
class SummaryContext:
    """What the summary says besides the record and the gates' outcome."""

    baseline_name: str = ""
    updating: bool = False
    accept: str | None = None  # the command to accept this state; None: no baseline to update
    report_path: str | None = None
    html_path: str | None = None
    written: tuple[str, ...] | None = None  # files written (None: say every path given)
    alpha: float = 0.05
    verbose: bool = False


def summary_lines(
    record: RunRecord, outcome: GateOutcome, context: SummaryContext
) -> list[tuple[str, Style]]:
    """The ``chunkrecall`` section, after its title; the next command to type comes last."""
    lines: list[tuple[str, Style]] = []
    totals = Totals.of(record.results())
    lines.append((terminal.headline(totals), "bold"))
    if totals.cases:
        lines.append((terminal.ranks_line(totals), "plain"))
    said: dict[tuple[str, ...], str] = {}  # setup lines, and the gold file that said them
    for summary in record.gold_files():
        setup = None
        if summary.info is not None and "error" not in summary.info:
            setup = tuple(gold_file.setup_lines(summary.info, verbose=context.verbose))
        for line in gold_file.gold_file_lines(
            summary.path,
            summary.info,
            summary.results,
            analysis=summary.analysis,
            verbose=context.verbose,
            same_setup_as=said.get(setup) if setup else None,
        ):
            lines.append((line, "yellow" if line.startswith("  !") else "plain"))
        if setup:
            said.setdefault(setup, summary.path)
    lines.append((terminal.verdict_counts(totals, expected=record.expected_misses()), "plain"))
    rows = record.sweep_rows(alpha=context.alpha)
    if rows:
        for line in terminal.sweep_lines(
            record.sweep_spec or "", [row.to_json(rows[0]) for row in rows], alpha=context.alpha
        ):
            lines.append((line, "plain"))
    comparison = outcome.comparison
    if comparison is not None:
        for line in terminal.comparison_lines(
            context.baseline_name,
            comparison,
            updating=context.updating,
            note=lambda result: regression_note(outcome, result),
        ):
            lines.append((line, "red" if line.startswith("  regression") else "plain"))
        if outcome.drift:
            lines.append(
                (f"chunkrecall: changed since baseline {context.baseline_name}:", "yellow")
            )
            lines += [(f"  {line}", "yellow") for line in outcome.drift.lines()]
    unevaluated = record.unevaluated()
    if unevaluated:
        count = len(unevaluated)
        lines.append(
            (
                f"chunkrecall: {count} case{'' if count == 1 else 's'} could not be evaluated and "
                f"{'is' if count == 1 else 'are'} not counted; see the errors above",
                "red",
            )
        )
    if outcome.gate_line is not None:
        lines.append((outcome.gate_line, "red_bold" if outcome.gate_fails else "bold"))
    lines += [(f"chunkrecall: {note}", "yellow") for note in outcome.notes]
    failed = outcome.failures + outcome.errors
    lines += [(f"chunkrecall: FAILED: {failure}", "red_bold") for failure in failed]
    for path, what in ((context.report_path, "JSON report"), (context.html_path, "HTML page")):
        # a file that could not be written has its red line above, never a "written"
        if path and (context.written is None or str(Path(path)) in context.written):
            lines.append((f"chunkrecall: {what} written to {path}", "plain"))
    changed = comparison is not None and bool(
        comparison.regressions or comparison.improvements or comparison.new or outcome.drift
    )
    if context.accept is not None and (outcome.failures or changed):
        lines.append(
            (
                f"chunkrecall: to accept this state as the new baseline, run: {context.accept}",
                "plain",
            )
        )
    return lines
