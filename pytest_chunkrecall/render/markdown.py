"""The run as Markdown, for a pull request's checks page."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..analysis.baseline import Comparison
from ..evaluation.results import CaseResult, Totals

WORST_SPLITS = 10


def render(
    totals: Totals,
    gold_files: Iterable[tuple[str, Mapping[str, Any] | None, list[CaseResult]]],
    comparison: Comparison | None,
    gate_failures: list[str],
    *,
    accept: str,
    failed: bool = False,
) -> str:
    """Totals, gates, regressions, improvements and the worst split spans, as Markdown."""
    files = list(gold_files)
    status = (
        "failed" if failed or gate_failures or (comparison and comparison.regressions) else "passed"
    )
    lines = [
        f"## chunkrecall: hit-rate {totals.hits}/{totals.cases} ({totals.hit_rate:.1%}), "
        f"split spans {totals.split_spans} — {status}",
        "",
        "| gold file | hit-rate | split spans | chunks | chunker | retriever | k |",
        "|---|---|---|---|---|---|---|",
    ]
    for path, info, results in files:
        mine = Totals.of(results)
        info = info or {}
        lines.append(
            f"| `{path}` | {mine.hits}/{mine.cases} ({mine.hit_rate:.1%}) | {mine.split_spans} | "
            f"{info.get('chunks', '')} | `{info.get('chunker', '')}` | `{info.get('retriever', '')}` | "
            f"{info.get('k', '')} |"
        )
    lines.append("")
    for failure in gate_failures:
        lines.append(f"**Gate failed:** {failure}")
    if comparison is not None:
        lines += _changes(
            "Regressions",
            [(r, f"{e} → **{r.verdict}**") for r, e in comparison.regressions],
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
