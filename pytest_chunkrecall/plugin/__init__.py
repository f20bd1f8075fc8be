"""The pytest face: options, collection of gold files, and what each test report carries."""

from __future__ import annotations

import re
import warnings
from collections.abc import Generator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..config.table import SETTINGS
from ..discovery import GoldWarning, collected_as_gold, not_collected_because
from ..errors import counted
from ..evaluation.suite import Suite, SuiteCache
from ..run import entry
from . import hookspecs, ini, integrations, options, workflow_commands
from .items import SUITES, CaseItem, GoldFile, note_selection, sweep_usage_error
from .options import OPTIONS

if TYPE_CHECKING:
    from ..render.html import ChunkWindow, DocumentData

DESCRIBED = pytest.StashKey["set[str]"]()


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(hookspecs)
    # GitHub annotations, and the columns and metadata of pytest-html and pytest-json-report.
    # Registered as modules already imported: named in pytest_plugins, pytest would mark them
    # for assertion rewriting in every in-process run, and warn that it cannot.
    pluginmanager.register(workflow_commands, workflow_commands.__name__)
    pluginmanager.register(integrations, integrations.__name__)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup(
        "chunkrecall", "chunkrecall: gold questions as tests of chunking and retrieval"
    )
    group.addoption(
        "--chunkrecall-report",
        metavar="PATH",
        help="Write the JSON report of every gold case to PATH",
    )
    group.addoption(
        "--chunkrecall-k",
        metavar="N",
        type=int,
        help="Ask every gold question for the top N chunks, overriding k in gold and ini files",
    )
    group.addoption(
        "--chunkrecall-sweep",
        metavar="SPEC",
        help="Also evaluate every gold file at other chunker settings and print a table, "
        "e.g. 'overlap=0,24,48' or 'size=400,800;overlap=0,100' (a grid)",
    )
    group.addoption(
        "--chunkrecall-baseline",
        metavar="PATH",
        help="Compare the run with the baseline at PATH: a case that was a hit and now misses "
        "fails as a regression, a known miss is an expected failure (ini: chunkrecall_baseline)",
    )
    group.addoption(
        "--chunkrecall-update-baseline",
        action="store_true",
        help="Write this run's results to the baseline instead of comparing with it; "
        "misses are recorded as known misses and do not fail the run",
    )
    group.addoption(
        "--chunkrecall-markdown",
        metavar="PATH",
        help="Write a Markdown summary (totals, regressions, improvements, worst split spans) "
        "to PATH; it is also appended to $GITHUB_STEP_SUMMARY when that is set",
    )
    group.addoption(
        "--chunkrecall-html",
        metavar="PATH",
        help="Write one self-contained HTML page of the run to PATH: each document with its "
        "chunk windows and gold spans, each case, the lab of overlap against span length "
        "(ini: chunkrecall_html)",
    )
    group.addoption(
        "--chunkrecall-force",
        action="store_true",
        help="Replace an existing file at the report, Markdown or HTML path that this plugin "
        "did not write (a project's own files are never replaced)",
    )
    for setting in SETTINGS:
        ini.register(parser, setting)


@pytest.hookimpl(tryfirst=True)  # a usage error stops the run before other plugins write files
def pytest_configure(config: pytest.Config) -> None:
    if config.option.help or config.option.markers:
        return  # no run: a bad option must not hide the help it asks for
    config.stash[OPTIONS] = options.read(config)
    config.stash[SUITES] = SuiteCache(config.rootpath)
    config.stash[DESCRIBED] = set()
    if not hasattr(config, "workerinput"):
        # Only where reports are gathered: an xdist worker never imports the
        # run's owner, the gates and the renderers (a tenth of the plugin's import).
        from .owner import RunOwner

        config.pluginmanager.register(RunOwner(config), "chunkrecall-owner")
        # xdist's hooks are known however it was loaded (an entry point, -p xdist.plugin)
        scheduler = getattr(config.hook, "pytest_xdist_make_scheduler", None)
        if (
            config.stash[OPTIONS].xdist_group
            and _distributed(config)
            and scheduler is not None
            and scheduler.has_spec()
        ):
            from .scheduling import GoldFileScheduler  # imports xdist, which is optional

            config.pluginmanager.register(GoldFileScheduler(config), "chunkrecall-scheduler")


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> GoldFile | None:
    if file_path.suffix not in (".yaml", ".yml"):
        return None
    config = parent.config
    chosen = config.stash[OPTIONS].gold_files
    if collected_as_gold(file_path, config.rootpath, chosen) or parent.session.isinitpath(
        file_path
    ):
        return GoldFile.from_parent(parent, path=file_path)
    # said by one process: every xdist worker collects every file
    if chosen is None and getattr(config, "workerinput", {}).get("workerid", "gw0") == "gw0":
        why = not_collected_because(file_path, config.rootpath)
        if why is not None:
            warnings.warn_explicit(GoldWarning(why), GoldWarning, str(file_path), 1)
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config) -> None:
    # Every gold file is collected first, so that the error names each chunker the
    # sweep does not fit, and no test runs at a sweep that cannot be evaluated.
    error = sweep_usage_error(config)
    if error is not None:
        raise error


def pytest_collection_finish(session: pytest.Session) -> None:
    # after every plugin's deselection (-k, -m, --lf, a shard): what this process evaluates
    note_selection(session.items)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    # Also after Ctrl-C: questions queued ahead are dropped, not sent. First, so
    # that the run's end (the record, the summary, the files) reuses the memory
    # the suites held instead of adding to it.
    suites = session.config.stash.get(SUITES, None)
    running = suites.close() if suites is not None else 0
    terminal = session.config.pluginmanager.get_plugin("terminalreporter")
    if running and terminal is not None:
        # Their threads are daemons: the process ends without waiting for them.
        were = "was" if running == 1 else "were"
        terminal.write_line(
            f"chunkrecall: {counted(running, 'retriever call')} {were} still running when the run "
            "ended; abandoned, not waited for",
            yellow=True,
        )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, Any, Any]:
    test_report = yield
    if isinstance(item, CaseItem) and (
        call.when == "call" or (call.when == "setup" and test_report.skipped)
    ):
        reason = getattr(test_report, "wasxfail", None)
        if reason is not None and item.result is not None and item.case.xfail is not None:
            test_report.wasxfail = xfail_line(item.result.verdict, reason)
        _attach(item, test_report)
    return test_report


def _distributed(config: pytest.Config) -> bool:
    """Whether xdist distributes this run (``-n`` above 0, ``--dist``, ``--tx``): its own test,
    on the options its ``pytest_cmdline_main`` has settled by now. A run that is not distributed
    never imports the scheduler, nor the xdist modules it needs."""
    return config.getoption("dist", "no") != "no" and bool(config.getoption("tx", None))


def xfail_line(verdict: str, reason: str) -> str:
    """The XFAIL line's reason: what the expected miss was, then the gold file's reason.

    A reason whose first word is the verdict already says it ("split: too far apart"), and
    is kept as written; a first word that only starts like it ("splitting") is not the verdict.
    """
    if re.split(r"\W", reason, maxsplit=1)[0].lower() == verdict:
        return reason
    return f"{verdict}: {reason}" if reason else verdict


def documents_of(suite: Suite) -> list[DocumentData]:
    """A suite's documents with their chunk windows, as the HTML page draws them."""
    windows: dict[str, list[ChunkWindow]] = {doc.id: [] for doc in suite.documents}
    for chunk in suite.chunks:
        windows[chunk.doc].append({"index": chunk.index, "start": chunk.start, "end": chunk.end})
    return [{"id": doc.id, "text": doc.text, "chunks": windows[doc.id]} for doc in suite.documents]


def _attach(item: CaseItem, test_report: pytest.TestReport) -> None:
    """Put the case's entry (and, once per process, its gold file's facts) on the report.

    Reports travel from xdist workers to the controller as JSON, so this is how
    the controller sees results without evaluating anything itself: from a worker
    the entry travels as the one text it is written as. A process that owns its
    run (no xdist) hands the run's owner the entry itself, unwritten: the owner
    writes it only for an output that lists the cases.
    """
    case = item.case
    outcome = _outcome(test_report)
    if item.result is not None:
        made = entry.evaluated(
            item.nodeid, item.result, xfail=case.xfail, outcome=outcome, sweep=item.sweep
        )
        # the report carries them now; items live as long as the session
        item.result = item.sweep = None
    else:  # skipped, or its configuration failed: in the report, but with no verdict
        made = entry.unevaluated(
            item.nodeid,
            gold_file=item.plan.name,
            case_id=case.id,
            line=case.line,
            xfail=case.xfail,
            outcome=outcome,
        )
    worker = hasattr(item.config, "workerinput")
    test_report.chunkrecall = entry.dumps(made) if worker else made  # type: ignore[attr-defined]
    described = item.config.stash[DESCRIBED]
    if item.plan.name not in described:
        info = item.gold_info()
        if info is not None:
            described.add(item.plan.name)
            test_report.chunkrecall_gold = entry.encode(info)  # type: ignore[attr-defined]
            if item.config.stash[OPTIONS].html and item.suite is not None:
                # The page draws the chunks over the documents; only the process that
                # built the suite has them, so they travel once, with the facts.
                documents = entry.encode(documents_of(item.suite))
                test_report.chunkrecall_documents = documents  # type: ignore[attr-defined]
    item.suite = None  # the suite cache keeps it while cases still run; items outlive that


def _outcome(test_report: pytest.TestReport) -> entry.TestOutcome:
    if hasattr(test_report, "wasxfail"):
        return "xfailed" if test_report.skipped else "xpassed"
    return test_report.outcome
