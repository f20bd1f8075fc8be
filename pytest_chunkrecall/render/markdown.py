"""The run as Markdown, for a pull request's checks page."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import counted, trimmed
from ..evaluation.case_facts import Scored
from ..evaluation.results import CaseResult
from ..files import MARKER
from ..run.fold import RunSummary
from . import terminal
from .failure import reason
from .markdown_text import markdown_text
from .summary import Summary

NEEDLE_CHARS = 60
"""How much of each needle a row of the failing cases shows."""


def render(summary: Summary) -> str:
    """Totals, gates, regressions, improvements and the worst split spans, as Markdown."""
    lines = [
        *_heading(summary),
        *_gold_files(summary),
        *_gates(summary),
        *_failing(summary.run),
        *_changes(summary),
        *_worst_splits(summary.run),
    ]
    if summary.accept is not None:
        lines += [f"To accept this state as the new baseline: `{summary.accept}`", ""]
    # last, so that the summary opens with its heading; a later run looks for it there
    return "\n".join([*lines, MARKER]) + "\n"


def _heading(summary: Summary) -> list[str]:
    """The run's hit rate and status, and why it covers only part of its cases."""
    totals = summary.run.totals
    status: str = summary.status
    incomplete = summary.context.incomplete
    if incomplete is not None:
        status += ", incomplete"
    lines = [
        f"## chunkrecall: {terminal.rate(totals)}, split spans {totals.split_spans} — {status}",
        "",
    ]
    if incomplete is not None:
        lines += [f"> **Incomplete:** {markdown_text(incomplete)}", ""]
    if summary.cost is not None:
        lines += [markdown_text(terminal.context_line(summary.cost)), ""]
    return lines


def _gold_files(summary: Summary) -> list[str]:
    """A table of the gold files; the funnel; the unstable cases."""
    lines = [
        "| gold file | hit-rate | split spans | chunks | chunker | retriever | k |",
        "|---|---|---|---|---|---|---|",
    ]
    for gold in summary.gold_files:
        mine = gold.run.totals
        info: Mapping[str, Any] = gold.run.info or {}
        lines.append(
            f"| {_code(gold.path)} | {terminal.rate(mine).removeprefix('hit-rate ')} | "
            f"{mine.split_spans} | {info.get('chunks', '')} | {_code(info.get('chunker', ''))} | "
            f"{_code(info.get('retriever', ''))} | {info.get('k', '')} |"
        )
    lines.append("")
    if summary.funnel is not None:
        lines += [terminal.funnel_line(summary.funnel), ""]
    compared = summary.outcome.comparison is not None
    unstable = terminal.unstable_line(summary.run, compared=compared)
    if unstable is not None:
        lines += [markdown_text(unstable.removeprefix("chunkrecall: ")), ""]
    return lines


def _gates(summary: Summary) -> list[str]:
    """The gate's line, and what failed the run."""
    outcome = summary.outcome
    lines = []
    if outcome.gate_line is not None:
        lines += [f"**{outcome.gate_line}**" if outcome.gate_fails else outcome.gate_line, ""]
    if outcome.cost_line is not None:
        cost = markdown_text(outcome.cost_line)
        lines += [f"**{cost}**" if outcome.cost_worse else cost, ""]
    lines += [f"**Gate failed:** {markdown_text(failure)}" for failure in outcome.failures]
    lines += [f"**Failed:** {markdown_text(error)}" for error in summary.notes.errors]
    if summary.absent is not None:
        lines.append(f"**{markdown_text(summary.absent)}**")
    if summary.fails_run or summary.absent is not None:
        lines.append("")
    return lines


def _changes(summary: Summary) -> list[str]:
    """What changed since the baseline: its setup and documents, then its cases."""
    outcome = summary.outcome
    lines = []
    if outcome.drift:
        lines += ["### Changed since the baseline", ""]
        lines += [f"- {markdown_text(line)}" for line in outcome.drift.lines()] + [""]
    comparison = outcome.comparison
    if comparison is None:
        return lines
    lines += _listed(
        "Regressions",
        [
            (r, f"{e} → **{r.verdict}**{summary.regression_note(r)}")
            for r, e in comparison.regressions
        ],
    )
    lines += _listed("Improvements", [(r, f"{e} → {r}") for r, e in comparison.improvements])
    lines += _listed("New cases", [(r, r.verdict) for r in comparison.new])
    if comparison.removed:
        lines += [f"### Removed cases ({len(comparison.removed)})", ""]
        lines += [f"- {markdown_text(nodeid, code=True)}" for nodeid in comparison.removed]
        lines.append("")
    return lines


def _worst_splits(run: RunSummary) -> list[str]:
    """The longest split spans, and where a boundary cut each."""
    if not run.worst_splits:
        return []
    lines = [
        "### Worst split spans",
        "",
        "| case | span length | cut |",
        "|---|---|---|",
    ]
    for split in run.worst_splits:
        cut = split.cut
        where = (
            f"{_code(cut.doc)} @ {cut.offset}: …{_cell(cut.before)}\\|{_cell(cut.after)}…"
            if cut
            else ""
        )
        lines.append(
            f"| {_code(f'{split.gold_file}::{split.id}')} | {split.span_length} "
            f"{_cell(split.unit)} | {where} |"
        )
    return [*lines, ""]


def _failing(summary: RunSummary) -> list[str]:
    """The failing cases, worst first (regressions, absent cases, the other failures), as a
    table of at most ``FAILING_LISTED`` rows and a count of the rest."""
    if not summary.failing:
        return []
    lines = [
        f"### Failing cases ({summary.failing_evaluated:,})",
        "",
        "| case | verdict | needle | reason |",
        "|---|---|---|---|",
    ]
    for entry in summary.failing:
        result = CaseResult.from_json(entry)
        needles = ", ".join(trimmed(needle, NEEDLE_CHARS) for needle in result.needles)
        lines.append(
            f"| {_code(entry['nodeid'])} | {_cell(result.verdict)} | {_cell(needles)} | "
            f"{_cell(reason(result))} |"
        )
    rest = summary.failing_evaluated - len(summary.failing)
    if rest:
        lines += ["", f"… and {counted(rest, 'more failing case')}."]
    return [*lines, ""]


def _listed(title: str, rows: list[tuple[Scored, str]]) -> list[str]:
    if not rows:
        return []
    lines = [f"### {title} ({len(rows)})", ""]
    for case, change in rows:
        nodeid = markdown_text(f"{case.gold_file}::{case.id}", code=True)
        lines.append(f"- {nodeid}: {change} — {markdown_text(case.question)}")
    return [*lines, ""]


def _cell(text: str) -> str:
    return markdown_text(text, in_table=True)


def _code(text: object) -> str:
    return markdown_text(str(text), code=True, in_table=True)
