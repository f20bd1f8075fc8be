"""The run's gates as one decision over its results and the baseline, apart from pytest.

A pytest run and ``python -m pytest_chunkrecall compare`` both ask here, so that a
merged report of shards passes or fails exactly as the one run would have.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..errors import ChunkrecallError, counted
from ..evaluation.case_facts import Scored
from ..evaluation.repeat import Policy, ranks_text
from ..evaluation.results import CaseResult, Totals
from ..evaluation.verdicts import kind_of
from ..gold import load
from ..measures.statistics import Gate, PairedComparison, compare_pairs, evidence, gate_line
from .drift import DOCUMENT_CHANGED, Drift, drift, span_documents
from .saved import UPDATE, Baseline, Comparison, Entry, classify

GATES: tuple[Gate, ...] = ("cases", "significant")

ABSENT_NAMED = 10
"""How many failed ``absent`` cases the line that says why the run fails names."""


@dataclass(frozen=True)
class GateSettings:
    """How the run is gated: ``chunkrecall_gate``, ``_alpha``, ``_min_effect``, ``_max_drop``,
    ``_min_hit_rate``."""

    gate: Gate = "cases"
    alpha: float = 0.05
    min_effect: float = 0.0
    max_drop: float | None = None  # None: not set; 0 under gate "cases", off under "significant"
    min_hit_rate: float | None = None

    @property
    def drop_limit(self) -> float | None:
        """The largest drop in points the run may show, or ``None``: no limit.

        Unset, it is 0 under gate ``cases`` (every lost hit counts) and no limit under
        ``significant``, whose point is to let a drop within noise pass.
        """
        if self.max_drop is not None:
            return self.max_drop
        return 0.0 if self.gate == "cases" else None


@dataclass
class GateOutcome:
    """What the gates found: the comparison, its paired statistics, drift, failures and notes."""

    comparison: Comparison | None = None
    paired: PairedComparison | None = None
    gate_line: str | None = None
    gate_fails: bool = False
    drift: Drift = field(default_factory=Drift)
    failures: list[str] = field(default_factory=list)  # the gates that failed, and why
    # what failed the run besides the gates: a sweep setting that errored, a file not written
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    written: list[str] = field(default_factory=list)  # the files of the run that were written

    @property
    def fails_run(self) -> bool:
        """Whether a gate or something else at the end of the run fails it."""
        return bool(self.failures or self.errors)

    def document_changed(self, result: CaseResult) -> bool:
        """Whether a missed case's span lies in a document that changed since the baseline."""
        return bool(span_documents(result) & set(self.drift.changed))


def expectation(entry: Entry | None, result: Scored, *, gate: Gate, updating: bool) -> str | None:
    """Why a missed case is an expected failure, or ``None``: it fails.

    For a case without a YAML ``xfail`` whose needles are in the corpus (an
    ``absent`` one is a gold-data error to fix, never a miss to accept).
    """
    if updating:
        return f"recorded in the baseline as a known miss: {result.verdict}"
    change = classify(entry, result)
    if change in ("known_miss", "stage_change"):
        assert entry is not None
        now = "" if entry.verdict == result.verdict else f" (now {result.verdict})"
        if change == "stage_change":
            now = (
                " (now reranked_out: the first stage's candidates hold it and the reranker "
                "drops it, a change of stage, not a regression)"
            )
        return f"known miss in baseline: {entry.verdict}{now}"
    if change == "regression" and gate == "significant":
        return (
            f"regression ({entry} in the baseline, now {result.verdict}); with "
            "chunkrecall_gate = significant the total decides whether the run fails"
        )
    return None


@dataclass(frozen=True)
class CaseOutcome:
    """A case's test outcome, and why a miss is an expected failure when the baseline says so
    (``None`` for a YAML ``xfail``, whose reason is the gold file's)."""

    outcome: Literal["passed", "xpassed", "xfailed", "failed"]
    reason: str | None = None


def case_outcome(
    result: Scored,
    entry: Entry | None,
    *,
    xfail: str | None,
    gate: Gate,
    updating: bool = False,
    quarantined: Sequence[int | None] | None = None,
) -> CaseOutcome:
    """The test outcome of an evaluated case: the one decision ``CaseItem.runtest`` and the
    ``compare`` command both take.

    An unstable case under ``chunkrecall_unstable = quarantine`` (``quarantined``: the
    ranks its repeats saw) is an expected failure whatever it got. Otherwise a hit
    passes (an ``xpassed`` under a YAML ``xfail``); a YAML ``xfail`` keeps its own
    meaning; an ``absent`` needle is a gold-data error to fix, never a miss to accept;
    any other miss is an expected failure when :func:`expectation` says why.
    """
    if quarantined is not None:
        return CaseOutcome("xfailed", quarantine_reason(quarantined))
    if result.hit:
        return CaseOutcome("xpassed" if xfail is not None else "passed")
    if xfail is not None:
        return CaseOutcome("xfailed")
    if not kind_of(result.verdict).gold_error:
        reason = expectation(entry, result, gate=gate, updating=updating)
        if reason is not None:
            return CaseOutcome("xfailed", reason)
    return CaseOutcome("failed")


def quarantine_reason(ranks_seen: Sequence[int | None]) -> str:
    """Why a quarantined case is an expected failure: the ranks its repeats saw."""
    return (
        f"unstable: ranks seen {ranks_text(ranks_seen)} (chunkrecall_unstable = quarantine "
        "leaves it out of the baseline comparison)"
    )


def quarantined(
    unstable: bool | None, ranks_seen: Sequence[int | None] | None, policy: Policy
) -> Sequence[int | None] | None:
    """The ranks seen of a case that ``policy`` quarantines, else ``None``: it is judged as
    any other."""
    if policy == "quarantine" and unstable and ranks_seen is not None:
        return ranks_seen
    return None


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
    outcome = GateOutcome()
    floor = settings.min_hit_rate
    if floor is not None and totals.cases and totals.hit_rate < floor:
        outcome.failures.append(
            f"hit-rate {totals.hit_rate:.1%} is below chunkrecall_min_hit_rate {floor:.1%}"
        )
    if baseline is None or comparison is None:
        return outcome
    outcome.comparison = comparison
    outcome.drift = drift(baseline, setups, documents)
    before, after = paired_hits(comparison)
    outcome.paired = compare_pairs(before, after, alpha=settings.alpha)
    if not gating:
        return outcome
    outcome.gate_fails, outcome.gate_line = gate_line(
        outcome.paired, gate=settings.gate, alpha=settings.alpha, min_effect=settings.min_effect
    )
    if outcome.gate_fails and settings.gate == "significant":
        # Under gate "cases" the regressed tests fail the run themselves.
        outcome.failures.append(
            f"hit-rate against baseline {name} is "
            f"{evidence(outcome.paired, alpha=settings.alpha)}, a drop of "
            f"{-outcome.paired.delta_points:.1f} pts (chunkrecall_min_effect is "
            f"{settings.min_effect:g})"
        )
    if comparison.new and len(baseline) and not gold_files & set(baseline.cases):
        outcome.notes.append(
            f"none of this run's gold files is in baseline {name} "
            f"(it has {len(baseline)} cases of {', '.join(sorted(baseline.cases))}): "
            "is it this project's baseline?"
        )
    limit = settings.drop_limit
    if limit is not None and comparison.drop_points > limit:
        outcome.failures.append(
            f"hit-rate fell {comparison.drop_points:.1f} points against the baseline on the "
            f"{comparison.common} cases both have (chunkrecall_max_drop is {limit:g})"
        )
    return outcome


def absent_reason(count: int, named: list[str]) -> str | None:
    """``exit 1: 2 absent cases (gold-data errors): it-WRONG, hr-WRONG``, or ``None``: none.

    An ``absent`` case fails whatever the baseline holds (a needle the corpus lacks is
    the gold file's error, never a miss to accept), so a run whose gate passes can still
    fail; this line says why. ``named`` holds the first :data:`ABSENT_NAMED` of them.
    """
    if not count:
        return None
    shown = ", ".join(named[:ABSENT_NAMED])
    if count > len(named[:ABSENT_NAMED]):
        shown += f" and {count - len(named[:ABSENT_NAMED]):,} more"
    return f"exit 1: {counted(count, 'absent case')} (gold-data errors): {shown}"


def paired_hits(comparison: Comparison) -> tuple[list[bool], list[bool]]:
    """The baseline's and this run's hit on each case both have, as two aligned vectors.

    The paired statistics read only how many cases stayed, regressed or improved, so
    the vectors are laid out by those counts rather than by case.
    """
    b, c = len(comparison.regressions), len(comparison.improvements)
    kept = comparison.baseline_hits - b  # hits in both
    never = comparison.common - kept - b - c  # misses in both
    before = [True] * (kept + b) + [False] * (c + never)
    after = [True] * kept + [False] * b + [True] * c + [False] * never
    return before, after


def regression_note(outcome: GateOutcome, result: CaseResult) -> str:
    """`` (document changed since the baseline)`` for a regression in a changed document."""
    return f" ({DOCUMENT_CHANGED})" if outcome.document_changed(result) else ""


def existing_cases(
    rootdir: Path, gold_files: set[str], baseline: Baseline | None
) -> dict[str, set[str] | None]:
    """The case ids each gold file of the run (and of the baseline) has now; ``None``: gone."""
    paths = set(gold_files)
    if baseline is not None:
        paths |= {p for p in baseline.cases if not (rootdir / p).exists()}
    existing: dict[str, set[str] | None] = {}
    for path in sorted(paths):
        try:
            existing[path] = {case.id for case in load(rootdir / path, name=path).cases}
        except ChunkrecallError:
            existing[path] = None if not (rootdir / path).exists() else set()
    return existing


def accept_command(
    setup_args: list[str], *, baseline_name: str | None, baseline_from_ini: bool
) -> str:
    """The command that reproduces the run and accepts its state as the new baseline."""
    command = UPDATE
    if baseline_name is not None and not baseline_from_ini:
        command += f" --chunkrecall-baseline {shlex.quote(baseline_name)}"
    if setup_args:
        command += " " + shlex.join(setup_args)
    return command
