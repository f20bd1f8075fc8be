"""The run's gates: the baseline compared or updated, and the floors on the totals.

What a gate decides is kept here, apart from how the summary words it, so that
the summary, the JSON report and the exit status all read one decision.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from ..analysis import baseline
from ..analysis.baseline import Comparison
from ..analysis.baseline_update import write_updated
from ..errors import ChunkrecallError
from ..evaluation.results import CaseResult, Totals
from ..gold import load
from .options import OPTIONS, BaselineSetup


@dataclass
class GateOutcome:
    """What the gates found at the end of the run: the comparison, failures and notes."""

    comparison: Comparison | None = None
    failures: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    written: list[str] = field(default_factory=list)  # the files of the run that were written

    def fail(self, session: pytest.Session) -> None:
        """Fail the run (exit status 1) when a gate failed and nothing else failed it already."""
        if self.failures and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED


def run_gates(
    config: pytest.Config,
    results: list[CaseResult],
    *,
    gold_files: set[str],
    setups: dict[str, dict[str, object]],
    interrupted: bool,
    unevaluated: list[str] = (),  # type: ignore[assignment]
) -> GateOutcome:
    """Compare with (or update) the baseline and check the floors, for the cases that ran."""
    setup = config.stash[OPTIONS].baseline
    outcome = GateOutcome()
    totals = Totals.of(results)
    if setup.min_hit_rate is not None and totals.cases and totals.hit_rate < setup.min_hit_rate:
        outcome.failures.append(
            f"hit-rate {totals.hit_rate:.1%} is below chunkrecall_min_hit_rate {setup.min_hit_rate:.1%}"
        )
    if setup.path is None:
        return outcome
    existing = _existing_cases(config.rootpath, setup, gold_files)
    if setup.loaded is not None:
        outcome.comparison = baseline.compare(setup.loaded, results, existing=existing)
    if setup.update:
        _update(
            setup, outcome, results, existing=existing, setups=setups, interrupted=interrupted,
            unevaluated=unevaluated,
        )  # fmt: skip
        return outcome
    if setup.missing:
        outcome.notes.append(f"no baseline at {setup.name} yet: create it with {baseline.UPDATE}")
    comparison = outcome.comparison
    if comparison is not None and not interrupted:
        ran = {result.gold_file for result in results}
        if comparison.new and setup.loaded and not ran & set(setup.loaded.cases):
            outcome.notes.append(
                f"none of this run's gold files is in baseline {setup.name} "
                f"(it has {len(setup.loaded)} cases of {', '.join(sorted(setup.loaded.cases))}): "
                "is it this project's baseline?"
            )
        if comparison.drop_points > setup.max_drop:
            outcome.failures.append(
                f"hit-rate fell {comparison.drop_points:.1f} points against the baseline on the "
                f"{comparison.common} cases both have (chunkrecall_max_drop is {setup.max_drop:g})"
            )
    return outcome


def accept_command(config: pytest.Config) -> str:
    """The command that accepts this run's state as the new baseline."""
    setup = config.stash[OPTIONS].baseline
    command = baseline.UPDATE
    if setup.path is not None and not config.getini("chunkrecall_baseline"):
        command += f" --chunkrecall-baseline {setup.name}"
    return command


def _update(
    setup: BaselineSetup,
    outcome: GateOutcome,
    results: list[CaseResult],
    *,
    existing: dict[str, set[str] | None],
    setups: dict[str, dict[str, object]],
    interrupted: bool,
    unevaluated: list[str],
) -> None:
    assert setup.path is not None
    if interrupted or not results:
        outcome.notes.append(
            f"baseline {setup.name} not written: the run was interrupted or evaluated nothing"
        )
        return
    try:
        # read again, merged and written under a lock: a concurrent update lands on top
        size = write_updated(
            setup.path, setup.name, results, existing=existing, setups=setups,
            unevaluated=unevaluated,
        )  # fmt: skip
    except ChunkrecallError as exc:
        outcome.failures.append(str(exc))
    else:
        outcome.notes.append(f"baseline {setup.name} written: {size} cases")


def _existing_cases(
    rootdir: Path, setup: BaselineSetup, gold_files: set[str]
) -> dict[str, set[str] | None]:
    """The case ids each gold file of the run (and of the baseline) has now; ``None``: gone."""
    paths = set(gold_files)
    if setup.loaded is not None:
        paths |= {p for p in setup.loaded.cases if not (rootdir / p).exists()}
    existing: dict[str, set[str] | None] = {}
    for path in sorted(paths):
        try:
            existing[path] = {case.id for case in load(rootdir / path, name=path).cases}
        except ChunkrecallError:
            existing[path] = None if not (rootdir / path).exists() else set()
    return existing
