"""The run's section of the terminal summary, as lines of a kind that decides their emphasis.

A pytest run writes them through its terminal reporter; ``compare`` prints them:
the same lines either way.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..baseline.gating import GateOutcome, absent_reason, regression_note
from ..errors import counted
from ..run.fold import GoldFileRun, RunSummary
from . import gold_file, terminal
from .terminal import Kind, Line

Style = Literal["plain", "bold", "red", "red_bold", "yellow"]

STYLES: dict[Kind, Style] = {
    "headline": "bold",
    "info": "plain",
    "warning": "yellow",
    "regression": "red",
    "gate": "bold",
    "gate_failed": "red_bold",
    "error": "red",
    "failure": "red_bold",
}
"""The emphasis of each kind of line."""

SLOW_LISTING = 300
"""From how many failed cases on the summary says how to avoid pytest's slow failure listing."""


@dataclass(frozen=True)
class SummaryContext:
    """What the summary says besides the run's summary and the gates' outcome."""

    baseline_name: str = ""
    updating: bool = False
    accept: str | None = None  # the command to accept this state; None: no baseline to update
    report_path: str | None = None
    html_path: str | None = None
    written: tuple[str, ...] | None = None  # files written (None: say every path given)
    alpha: float = 0.05
    verbose: bool = False
    tbstyle: str | None = None  # pytest's --tb; None outside pytest


def summary_lines(summary: RunSummary, outcome: GateOutcome, context: SummaryContext) -> list[Line]:
    """The ``chunkrecall`` section, after its title; the next command to type comes last."""
    totals = summary.totals
    lines = [Line("headline", terminal.headline(totals))]
    if totals.cases:
        lines.append(Line("info", terminal.ranks_line(totals)))
    said: dict[tuple[Line, ...], str] = {}  # setup lines, and the gold file that said them
    for gold in summary.gold_files:
        setup = None
        if gold.info is not None and "error" not in gold.info:
            setup = tuple(gold_file.setup_lines(gold.info, verbose=context.verbose))
        lines += gold_file.gold_file_lines(
            gold.path,
            gold.info,
            gold.cases,
            analysis=gold.analysis,
            verbose=context.verbose,
            same_setup_as=said.get(setup) if setup else None,
        )
        if setup:
            said.setdefault(setup, gold.path)
        if gold.staged and len(summary.gold_files) > 1:
            lines.append(Line("info", "  " + funnel_text(summary, gold)))
    verdicts = terminal.verdict_counts(totals, expected=summary.expected_misses)
    lines.append(Line("info", verdicts))
    if totals.cases:
        lines.append(Line("info", funnel_text(summary)))
    unstable = terminal.unstable_line(summary, compared=outcome.comparison is not None)
    if unstable is not None:
        lines.append(Line("warning", unstable))
    rows = summary.sweep_rows
    if rows:
        table = [row.to_json(rows[0]) for row in rows]
        sweep = terminal.sweep_lines(summary.sweep_spec or "", table, alpha=context.alpha)
        lines += [Line("info", line) for line in sweep]
    comparison = outcome.comparison
    if comparison is not None:
        lines += terminal.comparison_lines(
            context.baseline_name,
            comparison,
            updating=context.updating,
            note=lambda result: regression_note(outcome, result),
        )
        if outcome.drift:
            changed = f"chunkrecall: changed since baseline {context.baseline_name}:"
            lines.append(Line("warning", changed))
            lines += [Line("warning", f"  {line}") for line in outcome.drift.lines()]
    unevaluated = len(summary.unevaluated)
    if unevaluated:
        # outside pytest (compare), the errors are in the log of the run that wrote the report
        where = "see the errors above" if context.tbstyle is not None else "see below"
        lines.append(
            Line(
                "error",
                f"chunkrecall: {unevaluated} case{'' if unevaluated == 1 else 's'} could not be "
                "evaluated and "
                f"{'is' if unevaluated == 1 else 'are'} not counted; {where}",
            )
        )
    if outcome.gate_line is not None:
        lines.append(Line("gate_failed" if outcome.gate_fails else "gate", outcome.gate_line))
    lines += [Line("warning", f"chunkrecall: {note}") for note in outcome.notes]
    failed = outcome.failures + outcome.errors
    lines += [Line("failure", f"chunkrecall: FAILED: {failure}") for failure in failed]
    absent = absent_reason(summary.absent_failed, summary.absent_named)
    if comparison is not None and absent is not None:
        # the gate may pass and the known misses be accepted: say what fails the run
        lines.append(Line("failure", f"chunkrecall: {absent}"))
    for path, what in ((context.report_path, "JSON report"), (context.html_path, "HTML page")):
        # a file that could not be written has its red line above, never a "written"
        if path and (context.written is None or str(Path(path)) in context.written):
            lines.append(Line("info", f"chunkrecall: {what} written to {path}"))
    if summary.failed_cases > SLOW_LISTING and context.tbstyle not in (None, "line", "no"):
        lines.append(Line("info", slow_listing(summary.failed_cases)))
    changed_cases = comparison is not None and bool(
        comparison.regressions or comparison.improvements or comparison.new or outcome.drift
    )
    if context.accept is not None and (outcome.failures or changed_cases):
        accept = f"chunkrecall: to accept this state as the new baseline, run: {context.accept}"
        lines.append(Line("info", accept))
    return lines


def funnel_text(summary: RunSummary, gold: GoldFileRun | None = None) -> str:
    """The funnel line of the run, or of one of its gold files (see :func:`terminal.funnel_line`)."""
    files = [gold] if gold is not None else summary.gold_files
    infos = [each.info for each in files if each.info is not None and "error" not in each.info]
    ks = {info["k"] for info in infos if "k" in info}
    return terminal.funnel_line(
        gold.funnel if gold is not None else summary.funnel,
        loader=any("loader" in info for info in infos),
        reranker=any("reranker" in info for info in infos),
        k=ks.pop() if len(ks) == 1 else None,
    )


def slow_listing(failed: int) -> str:
    """What to do about pytest's failure listing, whose time grows with the square of the
    number of failures (each failure's teardown sections are looked up among every report)."""
    return (
        f"chunkrecall: {counted(failed, 'gold case')} failed, and pytest takes time that grows "
        "with the square of their number to list failures: --tb=line, or --tb=no with "
        "--chunkrecall-report or --chunkrecall-html, avoids that listing"
    )
