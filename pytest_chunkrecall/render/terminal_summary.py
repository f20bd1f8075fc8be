"""The run's section of the terminal summary, printed from the summary model, as lines of a
kind that decides their emphasis.

A pytest run writes them through its terminal reporter; ``compare`` prints them:
the same lines either way.
"""

from __future__ import annotations

from typing import Literal

from ..errors import counted
from ..guard import quoted
from . import gold_file, terminal
from .summary import GoldFileSummary, Summary, written
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


def summary_lines(summary: Summary) -> list[Line]:
    """The ``chunkrecall`` section, after its title; the next command to type comes last."""
    return [
        *_totals(summary),
        *_comparison(summary),
        *_end(summary),
    ]


def _totals(summary: Summary) -> list[Line]:
    """The run's hit rate, each gold file, the verdicts, the funnel, the unstable cases and
    the sweep."""
    run = summary.run
    totals = run.totals
    lines = [Line("headline", terminal.headline(totals))]
    if totals.cases:
        lines.append(Line("info", terminal.ranks_line(totals)))
    if summary.cost is not None:
        lines.append(Line("info", terminal.context_line(summary.cost)))
    lines += _gold_files(summary)
    lines.append(Line("info", terminal.verdicts_line(totals, expected=run.expected_misses)))
    if summary.funnel is not None:
        lines.append(Line("info", terminal.funnel_line(summary.funnel)))
    unstable = terminal.unstable_line(run, compared=summary.outcome.comparison is not None)
    if unstable is not None:
        lines.append(Line("warning", unstable))
    rows = run.sweep_rows
    if rows:
        table = [row.to_json(rows[0]) for row in rows]
        sweep = terminal.sweep_lines(
            run.sweep_spec or "",
            table,
            alpha=summary.context.alpha,
            cheapest=run.sweep_cheapest,
            unit=run.totals.unit,
        )
        lines += [Line("info", line) for line in sweep]
    return lines


def _gold_files(summary: Summary) -> list[Line]:
    """Each gold file's lines; a setup an earlier gold file said is named, not said again."""
    lines: list[Line] = []
    said: dict[tuple[Line, ...], str] = {}  # setup lines, and the gold file that said them
    verbose = summary.context.verbose
    for gold in summary.gold_files:
        setup = _setup(gold, verbose=verbose)
        lines += gold_file.gold_file_lines(
            gold.path,
            gold.run.info,
            gold.run.cases,
            analysis=gold.run.analysis,
            verbose=verbose,
            same_setup_as=said.get(setup) if setup else None,
        )
        if setup:
            said.setdefault(setup, gold.path)
        if gold.funnel is not None:
            lines.append(Line("info", "  " + terminal.funnel_line(gold.funnel)))
    return lines


def _setup(gold: GoldFileSummary, *, verbose: bool) -> tuple[Line, ...] | None:
    info = gold.run.info
    if info is None or "error" in info:
        return None
    return tuple(gold_file.setup_lines(info, verbose=verbose))


def _comparison(summary: Summary) -> list[Line]:
    """What changed against the baseline, and since it."""
    comparison = summary.outcome.comparison
    if comparison is None:
        return []
    name = summary.context.baseline_name
    lines = terminal.comparison_lines(
        name, comparison, updating=summary.context.updating, note=summary.regression_note
    )
    drift = summary.outcome.drift
    if drift:
        lines.append(Line("warning", f"chunkrecall: changed since baseline {name}:"))
        lines += [Line("warning", f"  {line}") for line in drift.lines()]
    return lines


def _end(summary: Summary) -> list[Line]:
    """What was not evaluated, the gate's decision, notes, what failed the run, the files
    written, and the next command to type."""
    outcome = summary.outcome
    lines = []
    unevaluated = len(summary.run.unevaluated)
    if unevaluated:
        # outside pytest (compare), the errors are in the log of the run that wrote the report
        where = "see the errors above" if summary.context.tbstyle is not None else "see below"
        lines.append(Line("error", not_evaluated(unevaluated, where=where)))
    if outcome.gate_line is not None:
        lines.append(Line("gate_failed" if outcome.gate_fails else "gate", outcome.gate_line))
    if outcome.cost_line is not None:
        cost = f"chunkrecall {outcome.cost_line}"
        lines.append(Line("regression" if outcome.cost_worse else "info", cost))
    notes = [*outcome.notes, *summary.notes.notes]
    lines += [Line("warning", f"chunkrecall: {note}") for note in notes]
    failed = [*outcome.failures, *summary.notes.errors]
    lines += [Line("failure", f"chunkrecall: FAILED: {failure}") for failure in failed]
    if summary.absent is not None:
        lines.append(Line("failure", f"chunkrecall: {summary.absent}"))
    for output in written(summary):
        lines.append(Line("info", f"chunkrecall: {output.what} written to {quoted(output.path)}"))
    failed_cases = summary.run.failed_cases
    if failed_cases > SLOW_LISTING and summary.context.tbstyle not in (None, "line", "no"):
        lines.append(Line("info", slow_listing(failed_cases)))
    if summary.accept is not None:
        accept = f"chunkrecall: to accept this state as the new baseline, run: {summary.accept}"
        lines.append(Line("info", accept))
    return lines


def not_evaluated(count: int, *, where: str = "see the errors above") -> str:
    """``chunkrecall: 2 cases could not be evaluated and are not counted; …``."""
    return (
        f"chunkrecall: {counted(count, 'case')} could not be evaluated and "
        f"{'is' if count == 1 else 'are'} not counted; {where}"
    )


def slow_listing(failed: int) -> str:
    """What to do about pytest's failure listing, whose time grows with the square of the
    number of failures (each failure's teardown sections are looked up among every report)."""
    return (
        f"chunkrecall: {counted(failed, 'gold case')} failed, and pytest takes time that grows "
        "with the square of their number to list failures: --tb=line, or --tb=no with "
        "--chunkrecall-report or --chunkrecall-html, avoids that listing"
    )
