"""The run as Markdown, for a pull request's checks page."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..baseline.decision import GateOutcome
from ..baseline.reasons import absent_reason
from ..errors import counted, trimmed
from ..evaluation.case_facts import Scored
from ..evaluation.results import CaseResult
from ..files import MARKER
from ..run.fold import RunSummary
from . import terminal
from .failure import reason
from .markdown_text import markdown_text
from .summary import funnel_text

NEEDLE_CHARS = 60
"""How much of each needle a row of the failing cases shows."""


def render(
    summary: RunSummary,
    outcome: GateOutcome,
    *,
    accept: str,
    failed: bool = False,
    incomplete: str | None = None,
) -> str:
    """Totals, gates, regressions, improvements and the worst split spans, as Markdown;
    ``incomplete`` says why the run covers only part of its cases."""
    totals = summary.totals
    comparison, gate_failures = outcome.comparison, outcome.failures
    status = "failed" if failed or outcome.fails_run or summary.failed else "passed"
    if incomplete is not None:
        status += ", incomplete"
    lines = [
        f"## chunkrecall: {terminal.rate(totals)}, split spans {totals.split_spans} — {status}",
        "",
        *([f"> **Incomplete:** {markdown_text(incomplete)}", ""] if incomplete else []),
        "| gold file | hit-rate | split spans | chunks | chunker | retriever | k |",
        "|---|---|---|---|---|---|---|",
    ]
    for gold in summary.gold_files:
        mine = gold.totals
        info: Mapping[str, Any] = gold.info or {}
        lines.append(
            f"| {_code(gold.path)} | {terminal.rate(mine).removeprefix('hit-rate ')} | "
            f"{mine.split_spans} | {info.get('chunks', '')} | {_code(info.get('chunker', ''))} | "
            f"{_code(info.get('retriever', ''))} | {info.get('k', '')} |"
        )
    lines.append("")
    if totals.cases:
        lines += [funnel_text(summary), ""]
    unstable = terminal.unstable_line(summary, compared=comparison is not None)
    if unstable is not None:
        lines += [markdown_text(unstable.removeprefix("chunkrecall: ")), ""]
    if outcome.gate_line is not None:
        lines += [f"**{outcome.gate_line}**" if outcome.gate_fails else outcome.gate_line, ""]
    for failure in gate_failures:
        lines.append(f"**Gate failed:** {markdown_text(failure)}")
    for error in outcome.errors:
        lines.append(f"**Failed:** {markdown_text(error)}")
    absent = absent_reason(summary.absent_failed, summary.absent_named)
    if comparison is not None and absent is not None:
        lines.append(f"**{markdown_text(absent)}**")
    if outcome.fails_run or (comparison is not None and absent is not None):
        lines.append("")
    lines += _failing(summary)
    if outcome.drift:
        lines += ["### Changed since the baseline", ""]
        lines += [f"- {markdown_text(line)}" for line in outcome.drift.lines()] + [""]
    if comparison is not None:
        lines += _changes(
            "Regressions",
            [
                (r, f"{e} → **{r.verdict}**{outcome.regression_note(r)}")
                for r, e in comparison.regressions
            ],
        )
        lines += _changes(
            "Improvements",
            [(r, f"{e} → {r}") for r, e in comparison.improvements],
        )
        lines += _changes("New cases", [(r, r.verdict) for r in comparison.new])
        if comparison.removed:
            lines += [f"### Removed cases ({len(comparison.removed)})", ""]
            lines += [f"- {markdown_text(nodeid, code=True)}" for nodeid in comparison.removed]
            lines.append("")
    splits = summary.worst_splits
    if splits:
        lines += [
            "### Worst split spans",
            "",
            "| case | span length | cut |",
            "|---|---|---|",
        ]
        for split in splits:
            cut = split.cut
            where = (
                f"{_code(cut['doc'])} @ {cut['offset']}: "
                f"…{_cell(cut['before'])}\\|{_cell(cut['after'])}…"
                if cut
                else ""
            )
            lines.append(
                f"| {_code(f'{split.gold_file}::{split.id}')} | {split.span_length} "
                f"{_cell(split.unit)} | {where} |"
            )
        lines.append("")
    if comparison is not None and (
        gate_failures or comparison.regressions or comparison.improvements or comparison.new
    ):
        lines += [f"To accept this state as the new baseline: `{accept}`", ""]
    # last, so that the summary opens with its heading; a later run looks for it there
    return "\n".join([*lines, MARKER]) + "\n"


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


def _changes(title: str, rows: list[tuple[Scored, str]]) -> list[str]:
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
