"""The run as Markdown, for a pull request's checks page."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..baseline.gating import GateOutcome, regression_note
from ..evaluation.results import CaseResult, Totals
from ..run.record import RunRecord
from . import terminal

WORST_SPLITS = 10


def render(record: RunRecord, outcome: GateOutcome, *, accept: str, failed: bool = False) -> str:
    """Totals, gates, regressions, improvements and the worst split spans, as Markdown."""
    totals = Totals.of(record.results())
    files: list[tuple[str, Mapping[str, Any] | None, list[CaseResult]]] = [
        (s.path, s.info, s.results) for s in record.gold_files()
    ]
    comparison, gate_failures = outcome.comparison, outcome.failures
    status = "failed" if failed or outcome.fails_run or record.failed() else "passed"
    lines = [
        f"## chunkrecall: {terminal.rate(totals)}, split spans {totals.split_spans} — {status}",
        "",
        "| gold file | hit-rate | split spans | chunks | chunker | retriever | k |",
        "|---|---|---|---|---|---|---|",
    ]
    for path, info, results in files:
        mine = Totals.of(results)
        info = info or {}
        lines.append(
            f"| `{path}` | {terminal.rate(mine).removeprefix('hit-rate ')} | {mine.split_spans} | "
            f"{info.get('chunks', '')} | `{info.get('chunker', '')}` | `{info.get('retriever', '')}` | "
            f"{info.get('k', '')} |"
        )
    lines.append("")
    if outcome.gate_line is not None:
        lines += [f"**{outcome.gate_line}**" if outcome.gate_fails else outcome.gate_line, ""]
    for failure in gate_failures:
        lines.append(f"**Gate failed:** {failure}")
    for error in outcome.errors:
        lines.append(f"**Failed:** {error}")
    if outcome.fails_run:
        lines.append("")
    if outcome.drift:
        lines += ["### Changed since the baseline", ""]
        lines += [f"- {_cell(line)}" for line in outcome.drift.lines()] + [""]
    if comparison is not None:
        lines += _changes(
            "Regressions",
            [
                (r, f"{e} → **{r.verdict}**{regression_note(outcome, r)}")
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
            lines += [f"- `{nodeid}`" for nodeid in comparison.removed] + [""]
    splits = sorted(
        (r for _, _, results in files for r in results if r.span_split),
        key=lambda r: (-r.span_length, r.gold_file, r.line),
    )[:WORST_SPLITS]
    if splits:
        lines += [
            "### Worst split spans",
            "",
            "| case | span length | cut |",
            "|---|---|---|",
        ]
        for result in splits:
            cut = result.cut
            where = (
                f"`{cut.doc}` @ {cut.offset}: …{_cell(cut.before)}\\|{_cell(cut.after)}…"
                if cut
                else ""
            )
            lines.append(
                f"| `{result.gold_file}::{result.id}` | {result.span_length} {result.unit} | {where} |"
            )
        lines.append("")
    if comparison is not None and (
        gate_failures or comparison.regressions or comparison.improvements or comparison.new
    ):
        lines += [f"To accept this state as the new baseline: `{accept}`", ""]
    return "\n".join(lines) + "\n"


def _changes(title: str, rows: list[tuple[CaseResult, str]]) -> list[str]:
    if not rows:
        return []
    lines = [f"### {title} ({len(rows)})", ""]
    for result, change in rows:
        lines.append(f"- `{result.gold_file}::{result.id}`: {change} — {_cell(result.question)}")
    return [*lines, ""]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("`", "'")
