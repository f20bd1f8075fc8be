"""The JSON report: one document of the whole run, for CI, scripts and the HTML page.

This module alone decides the report's shape; ``report.schema.json`` beside it
describes that shape for the report's readers, and the tests validate every
report they produce against it. The report is strict JSON: no NaN, no infinity.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from itertools import islice
from typing import Any

from ..baseline.gating import GateOutcome
from ..baseline.saved import Comparison
from ..evaluation.gold_facts import GoldFileSummary
from ..evaluation.results import CaseResult, Totals
from ..run.record import REPORT_FORMAT, RunRecord

FORMAT = REPORT_FORMAT


def build(
    *,
    cases: Sequence[Mapping[str, Any]],
    results: Sequence[CaseResult],
    gold_files: Iterable[GoldFileSummary],
    unevaluated: Sequence[str],
    sweep: Mapping[str, Any] | None = None,
    baseline: Mapping[str, Any] | None = None,
    comparison: Mapping[str, Any] | None = None,
    setup_args: Sequence[str] = (),
) -> dict[str, Any]:
    """The report of a run: totals, each gold file, each case; the sweep and baseline if any.

    ``comparison`` is the paired comparison with the baseline
    (``PairedComparison.to_json()``); ``setup_args`` the command-line options that
    changed the setup, for the command that reproduces the run.
    """
    data: dict[str, Any] = {
        "chunkrecall_report": FORMAT,
        "totals": Totals.of(results).to_json(),
        "gold_files": [
            {
                "path": summary.path,
                # a gold file none of whose cases ran was never chunked: null, not missing
                **{"chunks": None, "corpus_chars": None, **(summary.info or {})},
                "spans": summary.analysis,
                "totals": Totals.of(summary.results).to_json(),
            }
            for summary in gold_files
        ],
        "cases": cases,  # as given: :func:`dumps` walks them one at a time
        "unevaluated": list(unevaluated),
        "setup_args": list(setup_args),
    }
    if sweep is not None:
        data["sweep"] = dict(sweep)
    if baseline is not None:
        data["baseline"] = dict(baseline)
    if comparison is not None:
        data["comparison"] = dict(comparison)
    return data


def comparison_json(comparison: Comparison) -> dict[str, Any]:
    """The comparison with the baseline, for the report's ``baseline`` object."""

    def ids(results: Iterable[CaseResult]) -> list[str]:
        return [f"{r.gold_file}::{r.id}" for r in results]

    return {
        "regressions": ids(r for r, _ in comparison.regressions),
        "improvements": ids(r for r, _ in comparison.improvements),
        "known_misses": ids(comparison.known_misses),
        "new": ids(comparison.new),
        "removed": list(comparison.removed),
        "common_cases": comparison.common,
        "baseline_hits": comparison.baseline_hits,
        "hits": comparison.current_hits,
        "drop_points": round(comparison.drop_points, 4),
    }


def dumps(report: Mapping[str, Any]) -> str:
    """The report as text: indented, and refusing NaN and infinity, which JSON has no words for.

    The cases are encoded one at a time, so that cases kept packed (see
    :mod:`..analysis.packed`) are unpacked one at a time too; the text is what
    ``json.dumps(report, indent=2)`` gives.
    """
    cases = report.get("cases")
    if not isinstance(cases, Sequence) or isinstance(cases, str):
        return _joined(report) + "\n"
    head, tail = _joined({**report, "cases": []}).split(_NO_CASES, 1)  # no string holds a newline
    encoded = [_INDENT + _ENCODER.encode(case).replace("\n", "\n" + _INDENT) for case in cases]
    listed = '\n  "cases": [\n' + ",\n".join(encoded) + "\n  ]" if encoded else _NO_CASES
    return "".join((head, listed, tail, "\n"))  # one join: the text is not copied again


def _joined(value: object) -> str:
    # What json.dumps gives, joined a batch of pieces at a time: indented JSON is
    # encoded in Python as one small string per key, value and bracket, and
    # json.dumps holds them all in one list (five times the text they make).
    pieces = _ENCODER.iterencode(value)
    return "".join(["".join(batch) for batch in iter(lambda: list(islice(pieces, _BATCH)), [])])


_ENCODER = json.JSONEncoder(indent=2, allow_nan=False)
_NO_CASES = '\n  "cases": []'
_INDENT = "    "  # a case's depth in the report: in the top level's list
_BATCH = 1 << 16  # pieces joined at a time


def report(
    record: RunRecord, outcome: GateOutcome, *, baseline_name: str | None, alpha: float = 0.05
) -> dict[str, Any]:
    """The JSON report of the run, with the gates' decision when a baseline was compared."""
    rows = record.sweep_rows(alpha=alpha)
    swept = None
    if rows:
        swept = {"spec": record.sweep_spec, "rows": [row.to_json(rows[0]) for row in rows]}
    compared = None
    if outcome.comparison is not None:
        compared = {
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
    return build(
        cases=record.ordered,
        results=record.results(),
        gold_files=record.gold_files(),
        unevaluated=record.unevaluated(),
        sweep=swept,
        baseline=compared,
        comparison=outcome.paired.to_json() if outcome.paired is not None else None,
        setup_args=record.setup_args,
    )
