"""The run's owner: every case's report folded in as it arrives, and the run's end written once.

Registered only where reports are gathered (a serial run, or the xdist
controller), as pytest's junitxml registers its ``LogXML``: it sees every test
report with or without xdist, evaluates nothing itself, and is the one place
that writes the run's files. An xdist worker never imports it.

Each case's entry arrives on its test report (:mod:`..run.entry`): from an
xdist worker as the JSON text it was written as, in a run without xdist as the
entry itself. The owner folds its values in (:class:`..run.fold.RunFold`), and
takes it off the report, which pytest keeps until the run ends; when the JSON
report or the HTML page is asked for, it also appends the entry's text to the
spool (written here, for an entry of this process). At the end, one pass gates
the run, writes the JSON report (the spooled texts, in gold-file order), the
HTML page, the Markdown and the baseline, and prints the summary.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from ..baseline import saved as baseline
from ..baseline.decision import GateOutcome, gate_run
from ..baseline.existing import existing_cases
from ..baseline.update import accept_command, write_updated
from ..errors import ChunkrecallError, counted
from ..evaluation.gold_facts import GoldInfo
from ..files import append_text, write_atomically
from ..guard import quoted
from ..render import json_report, markdown
from ..render.summary import Summary, SummaryContext, fails_run, summarise
from ..render.terminal_summary import STYLES, Style, summary_lines
from ..run import completeness, entry, source, sweep
from ..run.completeness import Completeness
from ..run.entry import CaseEntry
from ..run.fold import RunFold, RunSummary
from ..run.notes import RunNotes
from ..run.spool import Spool
from .items import CaseItem
from .options import OPTIONS

if TYPE_CHECKING:
    from ..render.html import DocumentData

_MARKUP: dict[Style, dict[str, bool]] = {
    "plain": {},
    "bold": {"bold": True},
    "red": {"red": True},
    "red_bold": {"red": True, "bold": True},
    "yellow": {"yellow": True},
}


_NOT_PASSING = "a run that did not evaluate every selected case does not pass"
_RUNNING_NOTHING = ("collectonly", "setuponly", "setupplan")  # pytest's --co, --setup-only/plan


class RunOwner:
    """Folds in every case's report as it arrives; at the session's end, gates the run and
    writes its files; in the terminal summary, prints the ``chunkrecall`` section."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        options = config.stash[OPTIONS]
        self.fold = RunFold(
            baseline=options.baseline.loaded,
            sweep_spec=options.sweep_spec if options.sweep else None,
            alpha=options.baseline.gates.alpha,
            setup_args=setup_arguments(config),
            unstable=options.unstable,
        )
        # only the JSON report and the HTML page list every case
        self.lists_cases = bool(options.report or options.html)
        self.spool = Spool()
        self.documents: dict[str, DocumentData] = {}  # for the HTML page, when it is asked for
        self.crashed: set[str] = set()
        self.selected: set[str] = set()  # the cases this run selected, once collected
        self.reported: set[str] = set()  # the cases whose report arrived
        self.completeness = Completeness()
        self.outcome = GateOutcome()
        self.notes = RunNotes()
        self.summary: Summary | None = None

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.selected = {item.nodeid for item in session.items if isinstance(item, CaseItem)}

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: object, ids: list[str]) -> None:
        # Every worker collects the same selection; the controller collects nothing itself.
        if not self.selected:
            self.selected = {nodeid for nodeid in ids if _is_case(nodeid)}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        carried: str | CaseEntry | None = getattr(report, "chunkrecall", None)
        if carried is None:
            # A case whose xdist worker crashed comes back as a bare failure.
            if report.failed and _is_case(report.nodeid):
                self.crashed.add(report.nodeid)
            return
        self.reported.add(report.nodeid)
        if str(report.outcome) == "rerun":  # pytest-rerunfailures: the last attempt is the case's
            return
        if report.nodeid in self.fold:  # reported again by another plugin: the first one counts
            return
        # an xdist worker's entry arrives as its text; this process's own, as itself
        found = entry.loads(carried) if isinstance(carried, str) else carried
        self.fold.add(found)
        if self.lists_cases:
            text = carried if isinstance(carried, str) else entry.dumps(found)
            self.spool.add(report.nodeid, entry.order_key(found), text)
        # pytest keeps every report until the run ends: the fold and the spool have it now
        del report.chunkrecall
        info = getattr(report, "chunkrecall_gold", None)
        if info is not None:
            facts: GoldInfo = entry.decode(info)
            self.fold.add_gold_info(report.nodeid.partition("::")[0], facts)
        documents = getattr(report, "chunkrecall_documents", None)
        if documents is not None:
            for document in entry.decode(documents):
                self.documents.setdefault(document["id"], document)
            del report.chunkrecall_documents

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if not len(self.fold):
            self._nothing_evaluated(session, exitstatus)
            return
        setup = self.config.stash[OPTIONS].baseline
        gold_files = self.fold.gold_file_paths()
        for nodeid in self.crashed:
            # a case whose worker crashed has no entry; one of a file that never ran is not ours
            if nodeid.partition("::")[0] in gold_files:
                self.fold.add_crashed(nodeid)
        existing = (
            existing_cases(self.config.rootpath, gold_files, setup.loaded)
            if setup.path is not None
            else {}
        )
        summary = self.fold.finish(existing=existing)
        interrupted = exitstatus in (pytest.ExitCode.INTERRUPTED, pytest.ExitCode.INTERNAL_ERROR)
        self.completeness = completeness.of_run(
            selected=self.selected,
            reported=self.reported | self.crashed,
            interrupted=interrupted,
            stopped=_stopped(session),
            crashed=bool(self.crashed),
            selection=selection_of(self.config, len(self.selected)),
        )
        self.outcome = outcome = gate_run(
            setup.gates,
            summary.totals,
            comparison=summary.comparison,
            baseline=setup.loaded,
            name=setup.name,
            gold_files=summary.evaluated_files,
            setups=summary.setups(),
            documents=summary.fingerprints(),
            gating=not setup.update and not interrupted,
        )
        self._baseline(summary, existing, interrupted=interrupted)
        notes = self.notes
        incomplete = self.completeness.line()
        if incomplete is not None and setup.loaded is not None and not setup.update:
            notes.errors.append(f"{incomplete}; the gate does not pass on part of a run")
        elif incomplete is not None and exitstatus == pytest.ExitCode.OK:
            # nothing else failed the run (a worker's internal error, a plugin that dropped
            # a case): its hit rate is that of part of its cases, and it must not pass
            notes.errors.append(f"{incomplete}; {_NOT_PASSING}")
        elif incomplete is not None:
            notes.notes.append(incomplete)
        notes.errors += sweep.failures(summary.sweep_rows)
        self._fail(session)
        # one summary, which every output of the run prints
        self.summary = summarise(summary, outcome, self._context(session), notes)
        self._write_outputs(session, self.summary)

    def _nothing_evaluated(self, session: pytest.Session, exitstatus: int) -> None:
        """Fail a run that selected cases and got the report of none, when nothing else
        failed it: there is no summary to gate, and no case passed."""
        if exitstatus != pytest.ExitCode.OK or not self.selected - self.reported - self.crashed:
            return
        if any(self.config.getoption(name) for name in _RUNNING_NOTHING):
            return  # the user asked for a run that evaluates nothing
        self.completeness = completeness.of_run(
            selected=self.selected,
            reported=self.reported | self.crashed,
            interrupted=False,
            stopped=_stopped(session),
            crashed=bool(self.crashed),
            selection=selection_of(self.config, len(self.selected)),
        )
        self.notes.errors.append(f"{self.completeness.line()}; {_NOT_PASSING}")
        self._fail(session)

    def _baseline(
        self,
        summary: RunSummary,
        existing: dict[str, set[str] | None],
        *,
        interrupted: bool,
    ) -> None:
        """Update the baseline, when asked to, or say there is none yet."""
        setup = self.config.stash[OPTIONS].baseline
        notes = self.notes
        if setup.path is None:
            return
        if not setup.update:
            if setup.missing:
                notes.notes.append(
                    f"no baseline at {setup.name} yet: create it with {baseline.UPDATE}"
                )
            return
        if interrupted or not summary.totals.cases:
            notes.notes.append(
                f"baseline {setup.name} not written: the run was interrupted or evaluated nothing"
            )
            return
        try:
            # read again, merged and written under a lock: a concurrent update lands on top
            written = write_updated(
                setup.path,
                setup.name,
                summary.baseline_entries(),
                existing=existing,
                setups=summary.setups(),
                documents=summary.fingerprints(),
                unevaluated=summary.unevaluated,
            )
        except ChunkrecallError as exc:
            notes.errors.append(str(exc))
        else:
            notes.notes.append(
                f"baseline {quoted(setup.name)} written: {counted(written.size, 'case')}"
            )
            kept = written.kept_line()
            if kept is not None:
                notes.notes.append(kept)

    def _write_outputs(self, session: pytest.Session, summary: Summary) -> None:
        """Write the report, the HTML page and the Markdown the options ask for."""
        options = self.config.stash[OPTIONS]
        if options.report:
            setup = options.baseline
            report = json_report.head(
                summary.run,
                self.outcome,
                baseline_name=setup.name if setup.path is not None else None,
                source=source.of_run(self.config.rootpath),
                completeness=self.completeness,
            )
            self._write(session, Path(options.report), json_report.text(report, self.spool.texts()))
        if options.html:
            from ..render import html  # the page's renderer, only for a run that asks for it

            page: html.PageData = {
                "summary": summary,
                "cases": [entry.loads(text) for text in self.spool.texts()],
                "documents": list(self.documents.values()),
            }
            self._write(session, Path(options.html), [html.render_page(page)])
        step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
        if not options.markdown and not step_summary:
            return
        text = markdown.render(summary)
        if options.markdown:
            self._write(session, Path(options.markdown), [text])
        if step_summary:
            try:
                append_text(Path(step_summary), text)
            except OSError as exc:
                self.notes.notes.append(
                    f"cannot append to GITHUB_STEP_SUMMARY {quoted(step_summary)}: {exc.strerror or exc}"
                )

    def _write(self, session: pytest.Session, path: Path, text: Iterable[str]) -> None:
        """Write a file of the run; failing to is a red line and a failed run, not a traceback."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(path, text)
        except OSError as exc:
            self.notes.errors.append(f"cannot write {quoted(path)}: {exc.strerror or exc}")
            self._fail(session)
        else:
            self.notes.written.append(str(path))

    def _fail(self, session: pytest.Session) -> None:
        """Fail the run (exit status 1) when a gate failed and nothing else failed it already."""
        if fails_run(self.outcome, self.notes) and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if self.summary is None:
            for error in self.notes.errors:  # a run that evaluated no case
                terminalreporter.write_line(f"chunkrecall: FAILED: {error}", **_MARKUP["red_bold"])
            return
        terminalreporter.write_sep("=", "chunkrecall")
        for line in summary_lines(self.summary):
            terminalreporter.write_line(line.text, **_MARKUP[STYLES[line.kind]])

    def _context(self, session: pytest.Session) -> SummaryContext:
        """What this pytest run's summary says besides the fold and the gates."""
        config = self.config
        options = config.stash[OPTIONS]
        setup = options.baseline
        return SummaryContext(
            baseline_name=setup.name,
            updating=setup.update,
            accept=run_accept_command(config)
            if setup.path is not None and not setup.update
            else None,
            report_path=options.report,
            html_path=options.html,
            alpha=setup.gates.alpha,
            verbose=config.get_verbosity() > 0,
            tbstyle=config.option.tbstyle,
            failed=session.exitstatus != pytest.ExitCode.OK,
            incomplete=self.completeness.line(),
        )

    def pytest_unconfigure(self) -> None:
        self.spool.close()


def _is_case(nodeid: str) -> bool:
    return "::" in nodeid and nodeid.partition("::")[0].endswith((".yaml", ".yml"))


def _stopped(session: pytest.Session) -> str | None:
    """Why pytest stopped before the last test (``-x``, ``--maxfail``, ``--sw``), or ``None``."""
    for reason in (session.shouldfail, session.shouldstop):
        if isinstance(reason, str) and reason:
            return reason
    maxfail = session.config.getoption("maxfail", 0)
    if maxfail and session.testsfailed >= maxfail:  # xdist stops the run itself
        return f"-x/--maxfail: stopping after {counted(maxfail, 'failure')}"
    return None


def selection_of(config: pytest.Config, selected: int) -> dict[str, object]:
    """What this run selected: ``-k``, ``-m``, the paths and node ids named, a pytest-split group."""
    found: dict[str, object] = {"cases": selected}
    if config.option.keyword:
        found["keyword"] = config.option.keyword
    if config.option.markexpr:
        found["markers"] = config.option.markexpr
    if config.args_source == pytest.Config.ArgsSource.ARGS:
        found["args"] = list(config.args)
    splits, group = config.getoption("splits", None), config.getoption("group", None)
    if splits and group:
        found["split"] = f"{group}/{splits}"
    return found


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


def selection_arguments(config: pytest.Config) -> list[str]:
    """The command-line options and paths that chose this run's cases: ``-k``, ``-m`` and
    the paths given.

    Kept apart from :func:`setup_arguments`, which the report records: shards of one run
    select different cases with the same setup.
    """
    found = []
    if config.option.keyword:
        found += ["-k", config.option.keyword]
    if config.option.markexpr:
        found += ["-m", config.option.markexpr]
    if config.args_source == pytest.Config.ArgsSource.ARGS:  # not testpaths, not the cwd
        found += config.args
    return found


def run_accept_command(config: pytest.Config) -> str:
    """:func:`accept_command` of this pytest run: its setup and its selection, so that the
    update records the cases this run evaluated, as this run evaluated them."""
    setup = config.stash[OPTIONS].baseline
    return accept_command(
        setup_arguments(config) + selection_arguments(config),
        baseline_name=setup.name if setup.path is not None else None,
        baseline_from_ini=not config.getoption("chunkrecall_baseline")
        and bool(config.getini("chunkrecall_baseline")),
    )
