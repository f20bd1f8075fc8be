"""The run's gates in pytest: the baseline compared or updated, and the floors on the totals.

What the gates decide is :func:`..analysis.gating.judge`'s, shared with the
``compare`` command; here is what only a pytest run does: update the baseline,
and fail the session.
"""

from __future__ import annotations

import pytest

from ..baseline import saved as baseline
from ..baseline.gating import GateOutcome, accept_command, existing_cases, judge
from ..baseline.update import write_updated
from ..errors import ChunkrecallError
from ..run.record import RunRecord
from .options import OPTIONS


def fail(outcome: GateOutcome, session: pytest.Session) -> None:
    """Fail the run (exit status 1) when a gate failed and nothing else failed it already."""
    if outcome.fails_run and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def run_gates(
    config: pytest.Config, record: RunRecord, *, interrupted: bool, unevaluated: list[str]
) -> GateOutcome:
    """Compare with (or update) the baseline and check the floors, for the cases that ran."""
    setup = config.stash[OPTIONS].baseline
    results = record.results()
    existing = (
        existing_cases(config.rootpath, record.gold_file_paths(), setup.loaded)
        if setup.path is not None
        else {}
    )
    outcome = judge(
        setup.gates,
        results,
        baseline=setup.loaded,
        name=setup.name,
        existing=existing,
        setups=record.setups(),
        documents=record.fingerprints(),
        gating=not setup.update and not interrupted,
    )
    if setup.path is None:
        return outcome
    if setup.update:
        if interrupted or not results:
            outcome.notes.append(
                f"baseline {setup.name} not written: the run was interrupted or evaluated nothing"
            )
            return outcome
        try:
            # read again, merged and written under a lock: a concurrent update lands on top
            size = write_updated(
                setup.path, setup.name, results, existing=existing, setups=record.setups(),
                documents=record.fingerprints(), unevaluated=unevaluated,
            )  # fmt: skip
        except ChunkrecallError as exc:
            outcome.errors.append(str(exc))
        else:
            outcome.notes.append(f"baseline {setup.name} written: {size} cases")
    elif setup.missing:
        outcome.notes.append(f"no baseline at {setup.name} yet: create it with {baseline.UPDATE}")
    return outcome


def setup_arguments(config: pytest.Config) -> list[str]:
    """The command-line options of this run that changed a gold file's setup or the gates."""
    found = []
    for override in config.option.override_ini or []:
        found += ["-o", override]
    if config.option.inifilename:
        found += ["-c", str(config.option.inifilename)]
    k = config.getoption("chunkrecall_k")
    if k is not None:
        found += ["--chunkrecall-k", str(k)]
    return found


def run_accept_command(config: pytest.Config) -> str:
    """:func:`accept_command` of this pytest run."""
    setup = config.stash[OPTIONS].baseline
    return accept_command(
        setup_arguments(config),
        baseline_name=setup.name if setup.path is not None else None,
        baseline_from_ini=not config.getoption("chunkrecall_baseline")
        and bool(config.getini("chunkrecall_baseline")),
    )
