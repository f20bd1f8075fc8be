"""Writing the run's files: the JSON report, the Markdown summary and GitHub's step summary.

Only the process that gathers the reports writes (a serial run, or the xdist
controller). A file that cannot be written fails the run with one red line;
it never ends the run in a traceback.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import pytest

from ..baseline.gating import GateOutcome
from ..files import write_atomically
from ..render import html, json_report, markdown
from ..render.html import DocumentData
from ..run.record import RunRecord
from .gate import fail, run_accept_command
from .options import OPTIONS


def write_outputs(
    config: pytest.Config,
    record: RunRecord,
    documents: Mapping[str, DocumentData],
    outcome: GateOutcome,
    session: pytest.Session,
) -> None:
    """Write the report, the HTML page and the Markdown the options ask for."""
    options = config.stash[OPTIONS]
    setup = options.baseline
    if options.report:
        report = json_report.report(
            record,
            outcome,
            baseline_name=setup.name if setup.path is not None else None,
            alpha=setup.gates.alpha,
        )
        _write(outcome, session, Path(options.report), json_report.dumps(report))
    if options.html:
        report = json_report.report(
            record,
            outcome,
            baseline_name=setup.name if setup.path is not None else None,
            alpha=setup.gates.alpha,
        )
        page = html.render_page(
            {
                "report": {**report, "cases": list(report["cases"])},
                "documents": list(documents.values()),
            }
        )
        _write(outcome, session, Path(options.html), page)
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if not options.markdown and not step_summary:
        return
    text = markdown.render(
        record,
        outcome,
        accept=run_accept_command(config),
        failed=session.exitstatus != pytest.ExitCode.OK,
    )
    if options.markdown:
        _write(outcome, session, Path(options.markdown), text)
    if step_summary:
        try:
            with open(step_summary, "a", encoding="utf-8") as handle:
                handle.write(text)
        except OSError as exc:
            outcome.notes.append(
                f"cannot append to GITHUB_STEP_SUMMARY {step_summary}: {exc.strerror or exc}"
            )


def _write(outcome: GateOutcome, session: pytest.Session, path: Path, text: str) -> None:
    """Write a file of the run; failing to is a red line and a failed run, not a traceback."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(path, text)
    except OSError as exc:
        outcome.errors.append(f"cannot write {path}: {exc.strerror or exc}")
        fail(outcome, session)
    else:
        outcome.written.append(str(path))
