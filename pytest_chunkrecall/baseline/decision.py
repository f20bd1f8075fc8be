"""The gates' decision over a run: its floors, and its comparison with the baseline.

A pytest run and ``python -m pytest_chunkrecall compare`` both ask here, so that a
merged report of shards passes or fails exactly as the one run would have.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ..evaluation.results import CaseResult, Totals
from ..measures.statistics import PairedComparison
from . import reasons
from .drift import DOCUMENT_CHANGED, Drift, drift, span_documents
from .paired import paired
from .policy import GateSettings
from .saved import Baseline, Comparison


@dataclass(frozen=True)
class GateOutcome:
    """What the gates decided: the comparison, its paired statistics, the gate's line, drift,
    the gates that failed and why, and what the comparison itself calls for a look at."""

    comparison: Comparison | None = None
    paired: PairedComparison | None = None
    gate_line: str | None = None
    # what the answers cost against the baseline, in words; None: no case hit in both runs
    cost_line: str | None = None
    cost_worse: bool = False  # the context to the answer grew significantly
    gate_fails: bool = False
    drift: Drift = field(default_factory=Drift)
    failures: tuple[str, ...] = ()  # the gates that failed, and why
    notes: tuple[str, ...] = ()

    def document_changed(self, result: CaseResult) -> bool:
        """Whether a missed case's span lies in a document that changed since the baseline."""
        return bool(span_documents(result) & set(self.drift.changed))

    def regression_note(self, result: CaseResult) -> str:
        """`` (document changed since the baseline)`` for a regression in a changed document."""
        return f" ({DOCUMENT_CHANGED})" if self.document_changed(result) else ""


def gate_run(
    settings: GateSettings,
    totals: Totals,
    *,
    comparison: Comparison | None,
    baseline: Baseline | None,
    name: str,
    gold_files: set[str],
    setups: Mapping[str, Mapping[str, Any]],
    documents: Mapping[str, Mapping[str, str]],
    gating: bool = True,
) -> GateOutcome:
    """Gate the run: the floors on its ``totals``, and its ``comparison`` with ``baseline``
    (named ``name``), with the drift of its ``gold_files``' setups and documents.

    ``gating`` false (an update, an interrupted run) compares without failing anything
    on the comparison.
    """
    failures = []
    floor = settings.min_hit_rate
    if floor is not None and totals.cases and totals.hit_rate < floor:
        failures.append(reasons.below_floor(totals.hit_rate, floor))
    if baseline is None or comparison is None:
        return GateOutcome(failures=tuple(failures))
    found = paired(comparison, alpha=settings.alpha)
    cost = comparison.context
    compared = GateOutcome(
        comparison=comparison,
        paired=found,
        cost_line=reasons.cost_line(cost, alpha=settings.alpha, unit=totals.unit),
        cost_worse=cost.significant(settings.alpha) and (cost.change_percent or 0.0) > 0,
        drift=drift(baseline, setups, documents),
        failures=tuple(failures),
    )
    if not gating:
        return compared
    fails = settings.fails(found)
    if fails and settings.gate == "significant":
        # Under gate "cases" the regressed tests fail the run themselves.
        failures.append(reasons.significant_drop(found, settings, name))
    limit = settings.drop_limit
    if limit is not None and comparison.drop_points > limit:
        failures.append(reasons.too_large_drop(comparison, limit))
    growth = settings.max_context_growth
    if growth is not None and settings.context_grew(cost):
        failures.append(reasons.context_growth(cost, growth, totals.unit))
    notes = []
    if comparison.new and len(baseline) and not gold_files & set(baseline.cases):
        notes.append(reasons.foreign_baseline(name, len(baseline), sorted(baseline.cases)))
    return replace(
        compared,
        gate_line=reasons.gate_line(found, settings),
        gate_fails=fails,
        failures=tuple(failures),
        notes=tuple(notes),
    )
