"""What the end of a run has to say besides the gates' decision: what else failed it, notes,
and the files it wrote.

The gates decide once (:class:`..baseline.decision.GateOutcome`); the run's owner, and the
``compare`` command, add here what its end found as it goes: a baseline written or not, a
file that could not be written, a sweep setting that errored, a run that stopped early.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class RunNotes:
    """The run's end besides the gates, gathered as it happens."""

    # what failed the run besides the gates: a sweep setting that errored, a file not written
    errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    written: list[str] = field(default_factory=list)  # the files of the run that were written
