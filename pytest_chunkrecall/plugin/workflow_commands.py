"""GitHub Actions workflow commands: each failing gold case annotated on its YAML line.

When ``GITHUB_ACTIONS=true`` (and ``chunkrecall_annotations`` is not ``off``), a failing
case prints ``::error file=gold/x.yaml,line=12,title=chunkrecall split: refund-window::…``
to stderr, where the runner turns it into an annotation on that line of the pull request.
An unexpected pass is a warning (an error when strict xfail fails it); a regression that
``chunkrecall_gate = significant`` makes an expected failure is announced at the end of the
run, from the run's summary (:mod:`..render.summary`), as an error when the run failed and a
warning when the gate let it pass.

pytest-github-actions-annotate-failures annotates every failed test. Where it is
installed, it is unregistered and called from here for every report that is not a gold
case's, so that each failure is annotated once.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import pytest

from .ini import ini_setting

if TYPE_CHECKING:
    from .owner import RunOwner

GOLD_SUFFIXES = (".yaml", ".yml")
MAX_MESSAGE = 4_000  # characters of the failure shown in the annotation; the log has it all
# pytest-github-actions-annotate-failures registers its reporter under this name
THEIRS = "annotate_errors"
# the run's owner, whose summary names the regressions
OWNER = "chunkrecall-owner"

Level = Literal["error", "warning"]


@pytest.hookimpl(trylast=True)  # after pytest-github-actions-annotate-failures registered
def pytest_configure(config: pytest.Config) -> None:
    if config.option.help or config.option.markers:
        return
    setting = ini_setting(config, "annotations")
    if setting == "off" or os.environ.get("GITHUB_ACTIONS") != "true":
        return
    if hasattr(config, "workerinput"):
        return  # the controller sees every report; a worker annotating too would double them
    theirs = config.pluginmanager.get_plugin(THEIRS)
    if theirs is not None:
        config.pluginmanager.unregister(theirs)
    config.pluginmanager.register(Annotations(config, theirs), "chunkrecall-annotations")


def escape_data(text: str) -> str:
    """A workflow command's message: ``%``, CR and LF escaped."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property value: as a message, and ``:`` and ``,`` too."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(level: Level, *, file: str, line: int, title: str, message: str) -> str:
    """``::level file=…,line=…,title=…::message``, each part escaped as GitHub requires."""
    properties = ",".join(
        f"{key}={escape_property(value)}"
        for key, value in (("file", file), ("line", str(line)), ("title", title))
    )
    return f"::{level} {properties}::{escape_data(message)}"


def is_gold(report: pytest.TestReport) -> bool:
    """Whether the report is a gold case's (its location is the case's line in a YAML file)."""
    return str(report.location[0]).endswith(GOLD_SUFFIXES) and "::" in report.nodeid


class Annotations:
    """Prints the workflow commands of gold cases; hands other reports to the other plugin."""

    def __init__(self, config: pytest.Config, theirs: Any) -> None:
        self.config = config
        self.theirs = theirs
        self.gate = ini_setting(config, "gate")

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if not is_gold(report):
            if self.theirs is not None:
                self.theirs.pytest_runtest_logreport(report)
            return
        if report.when != "call":
            if report.failed:  # a setup or teardown error of a gold case: one annotation
                self._print(
                    "error", report, f"chunkrecall {report.when} error", report.longreprtext
                )
            return
        reason = getattr(report, "wasxfail", None)
        if report.failed:
            verdict = _verdict(report)  # a hit that fails is a strict xfail's unexpected pass
            title = "chunkrecall unexpected pass" if verdict == "hit" else f"chunkrecall {verdict}"
            self._print("error", report, title, report.longreprtext)
        elif report.passed and reason is not None:
            self._print(
                "warning",
                report,
                "chunkrecall unexpected pass",
                f"{_case(report)} was expected to miss ({reason.removeprefix('hit: ')}), "
                "and it is now a hit: "
                "remove its xfail, or accept the new baseline",
            )

    @pytest.hookimpl(trylast=True)  # after the run's end has let the gate set the exit status
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        owner: RunOwner | None = self.config.pluginmanager.get_plugin(OWNER)
        summary = owner.summary if owner is not None else None
        if summary is None or summary.outcome.comparison is None or self.gate != "significant":
            return  # under gate "cases" a regression fails its test, annotated as it failed
        from ..baseline.reasons import tolerated_regression  # the controller's, at the end

        failed = session.exitstatus != pytest.ExitCode.OK
        level: Level = "error" if failed else "warning"
        verdict = "fails the run" if failed else "lets the run pass"
        for result, entry in summary.outcome.comparison.regressions:
            self._annotate(
                level,
                result.gold_file,
                result.line,
                f"chunkrecall regression: {result.id}",
                f"{tolerated_regression(entry, result.verdict)}; the gate ({self.gate}) {verdict}",
            )

    def _print(self, level: Level, report: pytest.TestReport, title: str, message: str) -> None:
        path, line, _ = report.location
        # reportinfo's line is 0-based
        self._annotate(level, str(path), (line or 0) + 1, f"{title}: {_case(report)}", message)

    def _annotate(self, level: Level, path: str, line: int, title: str, message: str) -> None:
        """An annotation on ``line`` (1-based) of the gold file at ``path`` (rootdir-relative)."""
        text = message if len(message) <= MAX_MESSAGE else message[:MAX_MESSAGE] + "…"
        print(
            command(level, file=self._path(path), line=line, title=title, message=text),
            file=sys.stderr,
            flush=True,
        )

    def _path(self, path: str) -> str:
        """The gold file relative to the checkout (GITHUB_WORKSPACE), as GitHub needs it."""
        absolute = (self.config.rootpath / path).resolve()
        for base in (os.environ.get("GITHUB_WORKSPACE"), str(self.config.invocation_params.dir)):
            if base:
                try:
                    return absolute.relative_to(Path(base).resolve()).as_posix()
                except ValueError:
                    continue
        return path


def _case(report: pytest.TestReport) -> str:
    return report.nodeid.rsplit("::", 1)[-1]


def _verdict(report: pytest.TestReport) -> str:
    verdicts = [value for name, value in report.user_properties if name == "verdict"]
    return str(verdicts[0]) if verdicts else "error"
