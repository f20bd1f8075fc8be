"""The run's own record: every case's result, gathered from the test reports, and what is made of
them at the end — the summary, the sweep, the baseline gate, the JSON and Markdown reports."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from . import baseline, markdown, report, sweep
from .baseline import Comparison
from .baseline_update import write_updated
from .errors import ChunkrecallError
from .files import write_atomically
from .gold import load
from .options import OPTIONS
from .results import CaseResult, Totals
from .spans import SpanFact, analyse
from .sweep import SweepRow


@dataclass(frozen=True)
class GoldFileSummary:
    """One gold file as the summary shows it."""

    path: str
    info: dict[str, Any] | None
    results: list[CaseResult]
    analysis: dict[str, Any] | None


class Recorder:
    """Collects every case's result from the reports, then writes the summary and the files.

    Registered only where reports are aggregated (a serial run, or the xdist
    controller); it never evaluates a case itself, and xdist workers never
    write anything.
    """

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.cases: dict[str, dict[str, Any]] = {}
        self.gold_info: dict[str, dict[str, Any]] = {}
        self.sweep: list[SweepRow] = []
        self.comparison: Comparison | None = None
        self.gate_failures: list[str] = []
        self.notes: list[str] = []
        self._results: list[CaseResult] | None = None
        self.crashed: set[str] = set()
        self.unwritten: set[str] = set()

    # -------------------------------------------------------- gathering

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

    def results(self) -> list[CaseResult]:
        """The evaluated cases (skipped ones have no result), in gold-file order."""
        # Read back once: the summary, the gates and the reports all ask for them.
        if self._results is None:
            self._results = [
                CaseResult.from_json(case) for case in self.ordered() if case.get("verdict")
            ]
        return self._results

    def ordered(self) -> list[dict[str, Any]]:
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

    def gold_files(self) -> list[GoldFileSummary]:
        """Each gold file of the run with its facts, its results and its span arithmetic."""
        results = self.results()
        summaries = []
        for path in sorted({case["gold_file"] for case in self.cases.values()}):
            mine = [r for r in results if r.gold_file == path]
            info = self.gold_info.get(path)
            geometry = (info or {}).get("geometry")
            analysis = None
            if geometry:
                facts = [
                    SpanFact(r.id, r.span_length, r.span_split)
                    for r in mine
                    if r.verdict != "absent"
                ]
                analysis = analyse(facts, geometry)
            summaries.append(GoldFileSummary(path, info, mine, analysis))
        return summaries

    # -------------------------------------------------------- the end of the run

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if not self.cases:
            return
        settings = self.config.stash[OPTIONS].sweep
        if settings:
            self.sweep = sweep.rows(settings, self.ordered())
        interrupted = exitstatus in (pytest.ExitCode.INTERRUPTED, pytest.ExitCode.INTERNAL_ERROR)
        self._baseline(session, interrupted=interrupted)
        path = self.config.stash[OPTIONS].report
        if path:
            self._write(session, Path(path), json.dumps(self.to_json(), indent=2) + "\n")
        self._markdown(session)

    def _write(self, session: pytest.Session, path: Path, text: str) -> None:
        """Write a file of the run; failing to is a red line and a failed run, not a traceback."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(path, text)
        except OSError as exc:
            self.unwritten.add(str(path))
            self.gate_failures.append(f"cannot write {path}: {exc.strerror or exc}")
            self._fail_on_gates(session)

    def _baseline(self, session: pytest.Session, *, interrupted: bool) -> None:
        setup = self.config.stash[OPTIONS].baseline
        results = self.results()
        totals = Totals.of(results)
        if setup.min_hit_rate is not None and totals.cases and totals.hit_rate < setup.min_hit_rate:
            self.gate_failures.append(
                f"hit-rate {totals.hit_rate:.1%} is below chunkrecall_min_hit_rate {setup.min_hit_rate:.1%}"
            )
        if setup.path is None:
            self._fail_on_gates(session)
            return
        existing = self._existing_cases()
        if setup.loaded is not None:
            self.comparison = baseline.compare(setup.loaded, results, existing=existing)
        if setup.update:
            if interrupted or not results:
                self.notes.append(
                    f"baseline {setup.name} not written: the run was interrupted or evaluated nothing"
                )
                return
            try:
                size = write_updated(
                    setup.path, setup.name, results, existing=existing, setups=self._setups(),
                    unevaluated=self.unevaluated(),
                )  # fmt: skip
            except ChunkrecallError as exc:
                self.gate_failures.append(str(exc))
            else:
                self.notes.append(f"baseline {setup.name} written: {size} cases")
            self._fail_on_gates(session)  # the floor holds even for an accepted state
            return
        if setup.missing:
            self.notes.append(f"no baseline at {setup.name} yet: create it with {baseline.UPDATE}")
        comparison = self.comparison
        if comparison is not None and not interrupted:
            ran = {result.gold_file for result in results}
            if comparison.new and setup.loaded and not ran & set(setup.loaded.cases):
                self.notes.append(
                    f"none of this run's gold files is in baseline {setup.name} "
                    f"(it has {len(setup.loaded)} cases of {', '.join(sorted(setup.loaded.cases))}): "
                    "is it this project's baseline?"
                )
            if comparison.drop_points > setup.max_drop:
                self.gate_failures.append(
                    f"hit-rate fell {comparison.drop_points:.1f} points against the baseline on the "
                    f"{comparison.common} cases both have (chunkrecall_max_drop is {setup.max_drop:g})"
                )
        self._fail_on_gates(session)

    def _fail_on_gates(self, session: pytest.Session) -> None:
        if self.gate_failures and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def _existing_cases(self) -> dict[str, set[str] | None]:
        """The case ids each gold file of the run (and of the baseline) has now; ``None``: gone."""
        setup = self.config.stash[OPTIONS].baseline
        paths = {case["gold_file"] for case in self.cases.values()}
        if setup.loaded is not None:
            paths |= {p for p in setup.loaded.cases if not (self.config.rootpath / p).exists()}
        existing: dict[str, set[str] | None] = {}
        for path in sorted(paths):
            try:
                existing[path] = {
                    case.id for case in load(self.config.rootpath / path, name=path).cases
                }
            except ChunkrecallError:
                existing[path] = None if not (self.config.rootpath / path).exists() else set()
        return existing

    def _setups(self) -> dict[str, dict[str, Any]]:
        keys = ("chunker", "chunker_args", "retriever", "retriever_args", "k", "match")
        return {
            path: {key: info[key] for key in keys if key in info}
            for path, info in self.gold_info.items()
            if not info.get("error")
        }

    # -------------------------------------------------------- output

    def to_json(self) -> dict[str, Any]:
        gold_files = [
            {
                "path": summary.path,
                # a gold file none of whose cases ran was never chunked: null, not missing
                **{"chunks": None, "corpus_chars": None, **(summary.info or {})},
                "spans": summary.analysis,
                "totals": Totals.of(summary.results).to_json(),
            }
            for summary in self.gold_files()
        ]
        data: dict[str, Any] = {
            "chunkrecall_report": 1,
            "totals": Totals.of(self.results()).to_json(),
            "gold_files": gold_files,
            "cases": self.ordered(),
            "unevaluated": self.unevaluated(),
        }
        if self.sweep:
            data["sweep"] = {
                "spec": self.config.stash[OPTIONS].sweep_spec,
                "rows": [row.to_json(self.sweep[0]) for row in self.sweep],
            }
        if self.comparison is not None:
            data["baseline"] = {
                "path": self.config.stash[OPTIONS].baseline.name,
                **report.comparison_json(self.comparison),
                "gate_failures": list(self.gate_failures),
            }
        return data

    def _markdown(self, session: pytest.Session) -> None:
        path = self.config.stash[OPTIONS].markdown
        step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
        if not path and not step_summary:
            return
        text = markdown.render(
            Totals.of(self.results()),
            [(s.path, s.info, s.results) for s in self.gold_files()],
            self.comparison,
            self.gate_failures,
            accept=self._accept_command(),
            failed=session.exitstatus != pytest.ExitCode.OK,
        )
        if path:
            self._write(session, Path(path), text)
        if step_summary:
            try:
                with open(step_summary, "a", encoding="utf-8") as handle:
                    handle.write(text)
            except OSError as exc:
                self.notes.append(
                    f"cannot append to GITHUB_STEP_SUMMARY {step_summary}: {exc.strerror or exc}"
                )

    def _accept_command(self) -> str:
        setup = self.config.stash[OPTIONS].baseline
        command = baseline.UPDATE
        if setup.path is not None and not self.config.getini("chunkrecall_baseline"):
            command += f" --chunkrecall-baseline {setup.name}"
        return command

    def pytest_unconfigure(self) -> None:
        # Everything is reported: drop the run's records now, so that the
        # collections pytest and the interpreter make on the way out do not
        # walk tens of thousands of dicts and views per 10,000 cases.
        self.cases.clear()
        self._results = None

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.cases:
            return
        write = terminalreporter.write_line
        totals = Totals.of(self.results())
        verbose = self.config.get_verbosity() > 0
        terminalreporter.write_sep("=", "chunkrecall")
        write(report.headline(totals), bold=True)
        for summary in self.gold_files():
            for line in report.gold_file_lines(
                summary.path,
                summary.info,
                summary.results,
                analysis=summary.analysis,
                verbose=verbose,
            ):
                write(line, yellow=line.startswith("  !"))
        expected = sum(
            1
            for case in self.cases.values()
            if case["outcome"] == "xfailed" and case.get("verdict")
        )
        write(report.verdict_counts(totals, expected=expected))
        if self.sweep:
            spec = self.config.stash[OPTIONS].sweep_spec or ""
            for line in report.sweep_lines(
                spec, [row.to_json(self.sweep[0]) for row in self.sweep]
            ):
                write(line)
        setup = self.config.stash[OPTIONS].baseline
        if self.comparison is not None:
            for line in report.comparison_lines(setup.name, self.comparison, updating=setup.update):
                write(line, red=line.startswith("  regression"))
        unevaluated = self.unevaluated()
        if unevaluated:
            write(
                f"chunkrecall: {_count(len(unevaluated), 'case')} could not be evaluated and "
                f"{'is' if len(unevaluated) == 1 else 'are'} not counted; see the errors above",
                red=True,
            )
        for note in self.notes:
            write(f"chunkrecall: {note}", yellow=True)
        for failure in self.gate_failures:
            write(f"chunkrecall: FAILED: {failure}", red=True, bold=True)
        path = self.config.stash[OPTIONS].report
        if path and str(Path(path)) not in self.unwritten:
            write(f"chunkrecall: JSON report written to {path}")
        changed = self.comparison is not None and (
            self.comparison.regressions or self.comparison.improvements or self.comparison.new
        )
        if not setup.update and setup.path is not None and (self.gate_failures or changed):
            write(
                f"chunkrecall: to accept this state as the new baseline, run: {self._accept_command()}"
            )


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _outcome(test_report: pytest.TestReport) -> str:
    if hasattr(test_report, "wasxfail"):
        return "xfailed" if test_report.skipped else "xpassed"
    return test_report.outcome
