"""The JSON report: one document of the whole run, for CI, scripts and the HTML page.

This module alone decides the report's shape; ``report.schema.json`` beside it
describes that shape for the report's readers, and the tests validate every
report they produce against it. The report is strict JSON: no NaN, no infinity.

Its text is indented, but for the cases: each is the one line of compact JSON
its test report carried (:mod:`..run.entry`), copied as it is, in gold-file and
line order. A report of many cases reads and diffs as a list of them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ..baseline.decision import GateOutcome
from ..baseline.saved import Comparison
from ..evaluation.case_facts import Scored
from ..evaluation.results import Totals
from ..run.completeness import Completeness
from ..run.fold import REPORT_FORMAT, Funnel, GoldFileRun, RunSummary
from ..run.source import SourceJSON

FORMAT = REPORT_FORMAT


def head(
    summary: RunSummary,
    outcome: GateOutcome,
    *,
    baseline_name: str | None,
    source: SourceJSON | None = None,
    completeness: Completeness | None = None,
) -> dict[str, Any]:
    """The report of a run but for its cases: totals, each gold file, what was not evaluated;
    where it was run from (``source``, when known); whether it covered every case it selected
    (``completeness``); the sweep, and the gates' decision when a baseline was compared."""
    data: dict[str, Any] = {
        "chunkrecall_report": FORMAT,
        "totals": totals_json(summary.totals, summary.funnel),
        "gold_files": [gold_file_json(gold) for gold in summary.gold_files],
        "cases": [],  # the entries' own texts take this place (see :func:`text`)
        "unevaluated": list(summary.unevaluated),
        "setup_args": list(summary.setup_args),
    }
    if completeness is not None:
        data.update(completeness.to_json())
    if source is not None:
        data["source"] = dict(source)
    sweep = sweep_json(summary)
    if sweep is not None:
        data["sweep"] = sweep
    if outcome.comparison is not None:
        data["baseline"] = {
            "path": baseline_name,
            **comparison_json(outcome.comparison),
            "documents_changed_regressions": [
                f"{r.gold_file}::{r.id}"
                for r, _ in outcome.comparison.regressions
                if outcome.document_changed(r)
            ],
            "drift": outcome.drift.to_json(),
            "gate": outcome.gate_line,
            "gate_failures": list(outcome.failures),
        }
    comparison = paired_json(outcome)
    if comparison is not None:
        data["comparison"] = comparison
    return data


def paired_json(outcome: GateOutcome) -> dict[str, Any] | None:
    """The report's ``comparison``: the paired statistics of the hit rate, and ``context``,
    what the answers cost before and after; ``None``: no baseline."""
    if outcome.paired is None:
        return None
    found: dict[str, Any] = dict(outcome.paired.to_json())
    if outcome.comparison is not None:
        found["context"] = outcome.comparison.context.to_json()
    return found


def totals_json(totals: Totals, funnel: Funnel) -> dict[str, Any]:
    """The report's ``totals``, of the run or of one gold file, with their funnel."""
    return {**totals.to_json(), "funnel": funnel.to_json()}


def gold_file_json(gold: GoldFileRun) -> dict[str, Any]:
    """One gold file as the report's ``gold_files`` lists it: its facts, spans and totals."""
    facts: Mapping[str, Any] = gold.info or {}
    return {
        "path": gold.path,
        # a gold file none of whose cases ran was never chunked: null, not missing
        **{"chunks": None, "corpus_chars": None, **facts},
        "spans": gold.analysis,
        "totals": totals_json(gold.totals, gold.funnel),
    }


def sweep_json(summary: RunSummary) -> dict[str, Any] | None:
    """The report's ``sweep``: its spec and each setting's row, or ``None``: no sweep."""
    rows = summary.sweep_rows
    if not rows:
        return None
    cheapest = summary.sweep_cheapest
    return {
        "spec": summary.sweep_spec,
        "rows": [row.to_json(rows[0]) for row in rows],
        "cheapest": cheapest.to_json() if cheapest is not None else None,
    }


def comparison_json(comparison: Comparison) -> dict[str, Any]:
    """The comparison with the baseline, for the report's ``baseline`` object."""

    def ids(cases: Iterable[Scored]) -> list[str]:
        return [f"{case.gold_file}::{case.id}" for case in cases]

    return {
        "regressions": ids(r for r, _ in comparison.regressions),
        "improvements": ids(r for r, _ in comparison.improvements),
        "known_misses": ids(comparison.known_misses),
        "new": ids(comparison.new),
        "stage_changes": ids(comparison.stage_changes),
        "removed": list(comparison.removed),
        "common_cases": comparison.common,
        "baseline_hits": comparison.baseline_hits,
        "hits": comparison.current_hits,
        "drop_points": round(comparison.drop_points, 4),
    }


def text(report: Mapping[str, Any], cases: Iterable[str]) -> Iterator[str]:
    """The report's text in pieces: ``report`` (a :func:`head`) indented, with ``cases``, the
    entries' JSON texts in report order, one a line in its ``cases`` list.

    Raises ``ValueError`` for NaN or infinity, which JSON has no words for.
    """
    encoded = _ENCODER.encode({**report, "cases": []})
    before, after = encoded.split(_NO_CASES, 1)  # no key or string of the head holds a newline
    yield before
    first = True
    for case in cases:
        yield ('\n  "cases": [\n    ' if first else ",\n    ") + case
        first = False
    yield _NO_CASES if first else "\n  ]"
    yield after + "\n"


_ENCODER = json.JSONEncoder(indent=2, allow_nan=False)
_NO_CASES = '\n  "cases": []'
