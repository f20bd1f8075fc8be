"""The run's record: every case's result, gathered from the test reports where they arrive.

The recorder sees every report with or without xdist (on the controller), so it
is the one place that knows the whole run; :mod:`.ending` makes the run's end of it.
"""

from __future__ import annotations

from typing import Any

import pytest

from ..analysis.survival import SpanFact, analyse
from ..analysis.sweep import SweepRow
from ..evaluation.gold_facts import GoldFileSummary, GoldInfo
from ..evaluation.results import CaseResult
from ..evaluation.suite import Suite
from ..render import json_report
from ..render.html import ChunkWindow, DocumentData
from .gate import GateOutcome
from .options import OPTIONS


class Recorder:
    """Collects every case's result from the reports.

    Registered only where reports are aggregated (a serial run, or the xdist
    controller); it never evaluates a case itself, and xdist workers never
    write anything.
    """

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.cases: dict[str, dict[str, Any]] = {}
        self.gold_info: dict[str, GoldInfo] = {}
        self.documents: dict[str, DocumentData] = {}
        self.sweep: list[SweepRow] = []
        self._results: list[CaseResult] | None = None
        self.crashed: set[str] = set()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        data = getattr(report, "chunkrecall", None)
        if data is None:
            # A case whose xdist worker crashed comes back as a bare failure.
            path = report.nodeid.partition("::")[0]
            if report.failed and path.endswith((".yaml", ".yml")) and "::" in report.nodeid:
                self.crashed.add(report.nodeid)
            return
        self.cases[report.nodeid] = {"nodeid": report.nodeid, **data, "outcome": _outcome(report)}
        self._results = None
        info = getattr(report, "chunkrecall_gold", None)
        if info is not None:
            self.gold_info.setdefault(data["gold_file"], info)
        for document in getattr(report, "chunkrecall_documents", None) or ():
            self.documents.setdefault(document["id"], document)

    def results(self) -> list[CaseResult]:
        """The evaluated cases (skipped ones have no result), in gold-file order."""
        # Read back once: the summary, the gates and the reports all ask for them.
        if self._results is None:
            self._results = [
                CaseResult.from_json(case) for case in self.ordered() if case.get("verdict")
            ]
        return self._results

    def ordered(self) -> list[dict[str, Any]]:
        """Every case's report entry, in gold-file and line order (whatever order they came in)."""
        return sorted(self.cases.values(), key=lambda c: (c["gold_file"], c["line"], c["id"]))

    def unevaluated(self) -> list[str]:
        """Cases that ran but have no verdict: their configuration, the user's code or their
        worker failed."""
        gold_files = {case["gold_file"] for case in self.cases.values()}
        crashed = [
            nodeid
            for nodeid in self.crashed - set(self.cases)
            if nodeid.partition("::")[0] in gold_files
        ]
        failed = [
            case["nodeid"]
            for case in self.ordered()
            if case.get("verdict") is None and case["outcome"] != "skipped"
        ]
        return failed + sorted(crashed)

    def expected_misses(self) -> int:
        """How many evaluated cases were expected failures (xfail or known misses)."""
        return sum(
            1
            for case in self.cases.values()
            if case["outcome"] == "xfailed" and case.get("verdict")
        )

    def gold_files(self) -> list[GoldFileSummary]:
        """Each gold file of the run with its facts, its results and its span arithmetic."""
        results = self.results()
        summaries = []
        for path in sorted({case["gold_file"] for case in self.cases.values()}):
            mine = [r for r in results if r.gold_file == path]
            info = self.gold_info.get(path)
            analysis = None
            if info is not None and "geometry" in info:
                facts = [
                    SpanFact(r.id, r.span_length, r.span_split)
                    for r in mine
                    if r.verdict != "absent"
                ]
                analysis = analyse(facts, info["geometry"])
            summaries.append(GoldFileSummary(path, info, mine, analysis))
        return summaries

    def report(self, outcome: GateOutcome) -> dict[str, Any]:
        """The JSON report of the run as gathered, with the gates' decision."""
        options = self.config.stash[OPTIONS]
        swept = None
        if self.sweep:
            swept = {
                "spec": options.sweep_spec,
                "rows": [row.to_json(self.sweep[0]) for row in self.sweep],
            }
        compared = None
        if outcome.comparison is not None:
            compared = {
                "path": options.baseline.name,
                **json_report.comparison_json(outcome.comparison),
                "gate_failures": list(outcome.failures),
            }
        return json_report.build(
            cases=self.ordered(),
            results=self.results(),
            gold_files=self.gold_files(),
            unevaluated=self.unevaluated(),
            sweep=swept,
            baseline=compared,
        )

    def setups(self) -> dict[str, dict[str, object]]:
        """What each evaluated gold file was configured with, as the baseline records it."""
        return {
            path: {
                "chunker": info["chunker"],
                "chunker_args": info["chunker_args"],
                "retriever": info["retriever"],
                "retriever_args": info["retriever_args"],
                "k": info["k"],
                "match": info["match"],
            }
            for path, info in self.gold_info.items()
            if "error" not in info
        }

    def pytest_unconfigure(self) -> None:
        # Everything is reported: drop the run's records now, so that the
        # collections pytest and the interpreter make on the way out do not
        # walk tens of thousands of dicts and views per 10,000 cases.
        self.cases.clear()
        self._results = None


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
