"""The run's section of the terminal summary, written through pytest's terminal reporter."""

from __future__ import annotations

import pytest

from ..baseline.gating import GateOutcome
from ..render.summary import Style, SummaryContext, summary_lines
from ..run.record import RunRecord
from .gate import run_accept_command
from .options import OPTIONS

_MARKUP: dict[Style, dict[str, bool]] = {
    "plain": {},
    "bold": {"bold": True},
    "red": {"red": True},
    "red_bold": {"red": True, "bold": True},
    "yellow": {"yellow": True},
}


def context(config: pytest.Config, outcome: GateOutcome) -> SummaryContext:
    """What this pytest run's summary says besides its record and gates."""
    options = config.stash[OPTIONS]
    setup = options.baseline
    return SummaryContext(
        baseline_name=setup.name,
        updating=setup.update,
        accept=run_accept_command(config) if setup.path is not None and not setup.update else None,
        report_path=options.report,
        html_path=options.html,
        written=tuple(outcome.written),
        alpha=setup.gates.alpha,
        verbose=config.get_verbosity() > 0,
    )


def write_summary(
    config: pytest.Config,
    record: RunRecord,
    outcome: GateOutcome,
    terminalreporter: pytest.TerminalReporter,
) -> None:
    """Print the ``chunkrecall`` section; the next command to type comes last."""
    terminalreporter.write_sep("=", "chunkrecall")
    for line, style in summary_lines(record, outcome, context(config, outcome)):
        terminalreporter.write_line(line, **_MARKUP[style])
