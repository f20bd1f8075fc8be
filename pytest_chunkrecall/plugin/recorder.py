"""The run's record: every case's result, gathered from the test reports where they arrive.

The recorder sees every report with or without xdist (on the controller), so it
is the one place that knows the whole run; :mod:`.ending` makes the run's end of it.
"""

from __future__ import annotations

import pytest

from ..evaluation.gold_facts import GoldInfo
from ..evaluation.suite import Suite
from ..render.html import ChunkWindow, DocumentData
from ..run.packed import packed_entries
from ..run.record import RunRecord
from .gate import setup_arguments
from .options import OPTIONS


class Recorder:
    """Collects every case's result from the reports.

    Registered only where reports are aggregated (a serial run, or the xdist
    controller); it never evaluates a case itself, and xdist workers never
    write anything.
    """

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.cases: dict[str, tuple[bytes, str]] = {}  # packed entry and outcome, by node id
        self.gold_info: dict[str, GoldInfo] = {}
        self.documents: dict[str, DocumentData] = {}  # for the HTML page, when it is asked for
        self.crashed: set[str] = set()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        packed = getattr(report, "chunkrecall", None)
        if packed is None:
            # A case whose xdist worker crashed comes back as a bare failure.
            path = report.nodeid.partition("::")[0]
            if report.failed and path.endswith((".yaml", ".yml")) and "::" in report.nodeid:
                self.crashed.add(report.nodeid)
            return
        self.cases[report.nodeid] = (packed, _outcome(report))
        info = getattr(report, "chunkrecall_gold", None)
        if info is not None:
            self.gold_info.setdefault(report.nodeid.partition("::")[0], info)
        for document in getattr(report, "chunkrecall_documents", None) or ():
            self.documents.setdefault(document["id"], document)

    def record(self) -> RunRecord:
        """What the run gathered, for the gates, the summary and the reports."""
        # a case's node id starts with its gold file's path, as its entry has it
        gold_files = {nodeid.partition("::")[0] for nodeid in self.cases}
        options = self.config.stash[OPTIONS]
        return RunRecord(
            cases=packed_entries(list(self.cases.values())),
            gold_info=dict(self.gold_info),
            # a case whose worker crashed has no entry; one of a file that never ran is not ours
            crashed=[
                nodeid
                for nodeid in self.crashed - set(self.cases)
                if nodeid.partition("::")[0] in gold_files
            ],
            sweep_spec=options.sweep_spec if options.sweep else None,
            setup_args=setup_arguments(self.config),
        )

    def pytest_unconfigure(self) -> None:
        # Everything is reported: drop the run's records now, so that the
        # collections pytest and the interpreter make on the way out do not
        # walk tens of thousands of dicts and views per 10,000 cases.
        self.cases.clear()


def documents_of(suite: Suite) -> list[DocumentData]:
    """A suite's documents with their chunk windows, as the HTML page draws them."""
    windows: dict[str, list[ChunkWindow]] = {doc.id: [] for doc in suite.documents}
    for chunk in suite.chunks:
        windows[chunk.doc].append({"index": chunk.index, "start": chunk.start, "end": chunk.end})
    return [{"id": doc.id, "text": doc.text, "chunks": windows[doc.id]} for doc in suite.documents]


def _outcome(test_report: pytest.TestReport) -> str:
    if hasattr(test_report, "wasxfail"):
        return "xfailed" if test_report.skipped else "xpassed"
    return test_report.outcome
