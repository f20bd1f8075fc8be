"""The end of the run: the gates decide, the files are written, the summary is printed."""

from __future__ import annotations

import pytest

from ..baseline.gating import GateOutcome
from ..run import sweep
from ..run.record import RunRecord
from .gate import fail, run_gates
from .options import OPTIONS
from .outputs import write_outputs
from .recorder import Recorder
from .summary import write_summary


class RunEnd:
    """Registered beside the :class:`Recorder`, where reports are aggregated."""

    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder
        self.outcome = GateOutcome()
        self.record: RunRecord | None = None

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        recorder = self.recorder
        if not recorder.cases:
            return
        self.record = record = recorder.record()
        interrupted = exitstatus in (pytest.ExitCode.INTERRUPTED, pytest.ExitCode.INTERNAL_ERROR)
        self.outcome = run_gates(
            recorder.config, record, interrupted=interrupted, unevaluated=record.unevaluated()
        )
        alpha = recorder.config.stash[OPTIONS].baseline.gates.alpha
        self.outcome.errors += sweep.failures(record.sweep_rows(alpha=alpha))
        fail(self.outcome, session)
        write_outputs(recorder.config, record, recorder.documents, self.outcome, session)

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if self.record is not None:
            write_summary(self.recorder.config, self.record, self.outcome, terminalreporter)
