"""The end of the run: the gates decide, the files are written, the summary is printed."""

from __future__ import annotations

import pytest

from ..analysis import sweep
from .gate import GateOutcome, run_gates
from .options import OPTIONS
from .outputs import write_outputs
from .recorder import Recorder
from .summary import write_summary


class RunEnd:
    """Registered beside the :class:`Recorder`, where reports are aggregated."""

    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder
        self.outcome = GateOutcome()

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        recorder = self.recorder
        if not recorder.cases:
            return
        settings = recorder.config.stash[OPTIONS].sweep
        if settings:
            recorder.sweep = sweep.rows(settings, recorder.ordered())
        interrupted = exitstatus in (pytest.ExitCode.INTERRUPTED, pytest.ExitCode.INTERNAL_ERROR)
        self.outcome = run_gates(
            recorder.config,
            recorder.results(),
            gold_files={case["gold_file"] for case in recorder.cases.values()},
            setups=recorder.setups(),
            interrupted=interrupted,
            unevaluated=recorder.unevaluated(),
        )
        self.outcome.fail(session)
        write_outputs(recorder, self.outcome, session)

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if self.recorder.cases:
            write_summary(self.recorder, self.outcome, terminalreporter)
