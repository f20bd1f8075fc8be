"""The run's section of the terminal summary: totals, gold files, sweep, baseline, gates."""

from __future__ import annotations

from pathlib import Path

import pytest

from ..evaluation.results import Totals
from ..render import terminal
from .gate import GateOutcome, accept_command
from .options import OPTIONS
from .recorder import Recorder


def write_summary(
    recorder: Recorder, outcome: GateOutcome, terminalreporter: pytest.TerminalReporter
) -> None:
    """Print the ``chunkrecall`` section; the next command to type comes last."""
    config = recorder.config
    write = terminalreporter.write_line
    totals = Totals.of(recorder.results())
    verbose = config.get_verbosity() > 0
    terminalreporter.write_sep("=", "chunkrecall")
    write(terminal.headline(totals), bold=True)
    if totals.cases:
        write(terminal.ranks_line(totals))
    for summary in recorder.gold_files():
        for line in terminal.gold_file_lines(
            summary.path, summary.info, summary.results, analysis=summary.analysis, verbose=verbose
        ):
            write(line, yellow=line.startswith("  !"))
    write(terminal.verdict_counts(totals, expected=recorder.expected_misses()))
    options = config.stash[OPTIONS]
    if recorder.sweep:
        spec = options.sweep_spec or ""
        for line in terminal.sweep_lines(
            spec, [row.to_json(recorder.sweep[0]) for row in recorder.sweep]
        ):
            write(line)
    setup = options.baseline
    comparison = outcome.comparison
    if comparison is not None:
        for line in terminal.comparison_lines(setup.name, comparison, updating=setup.update):
            write(line, red=line.startswith("  regression"))
    unevaluated = recorder.unevaluated()
    if unevaluated:
        count = len(unevaluated)
        write(
            f"chunkrecall: {count} case{'' if count == 1 else 's'} could not be evaluated and "
            f"{'is' if count == 1 else 'are'} not counted; see the errors above",
            red=True,
        )
    for note in outcome.notes:
        write(f"chunkrecall: {note}", yellow=True)
    for failure in outcome.failures:
        write(f"chunkrecall: FAILED: {failure}", red=True, bold=True)
    if options.report and str(Path(options.report)) in outcome.written:
        write(f"chunkrecall: JSON report written to {options.report}")
    if options.html and str(Path(options.html)) in outcome.written:
        write(f"chunkrecall: HTML page written to {options.html}")
    changed = comparison is not None and (
        comparison.regressions or comparison.improvements or comparison.new
    )
    if not setup.update and setup.path is not None and (outcome.failures or changed):
        write(
            f"chunkrecall: to accept this state as the new baseline, run: {accept_command(config)}"
        )
