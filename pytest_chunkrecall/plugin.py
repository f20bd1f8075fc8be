"""The pytest face: options, collection of gold files, and the run's summary and report."""

from __future__ import annotations

import glob
import json
import os
import tempfile
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest
import yaml

from . import hookspecs, report
from .engine import Engine
from .items import ENGINE, INI, K_OVERRIDE, LOADER, CaseItem, GoldFile
from .results import CaseResult, Totals
from .settings import SETTING_KEYS, Settings, check_setting

GOLD_PATTERNS = pytest.StashKey["set[Path] | None"]()
DESCRIBED = pytest.StashKey["set[str]"]()

_INI_HELP = {
    "corpus": "Glob patterns of the corpus files, relative to the rootdir (one per line)",
    "chunker": "The chunker as module:attr (default: pytest_chunkrecall.chunkers:fixed_size)",
    "chunker_args": "Arguments for the chunker, as an inline YAML or JSON mapping",
    "retriever": "The retriever factory as module:attr (default: pytest_chunkrecall.retrievers:bm25)",
    "retriever_args": "Arguments for the retriever factory, as an inline YAML or JSON mapping",
    "k": "How many retrieved chunks a needle may be found in (default: 5)",
    "match": "How needles are matched: exact, normalized or fuzzy (default: normalized)",
    "fuzzy_threshold": "Lowest rapidfuzz partial-ratio score that counts as found with match fuzzy (default: 90)",
}


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(hookspecs)


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
    parser.addini(
        "chunkrecall_gold",
        "Glob patterns of gold files, relative to the rootdir; replaces the default "
        "(*.yaml and *.yml files inside a folder named gold)",
        type="linelist",
    )
    for key in SETTING_KEYS:
        if key == "corpus":
            parser.addini(f"chunkrecall_{key}", _INI_HELP[key], type="linelist")
        else:
            parser.addini(f"chunkrecall_{key}", _INI_HELP[key], type="string")
    parser.addini(
        "chunkrecall_loader",
        "A function module:attr that reads a corpus file (loader(path) -> str), for files that are not UTF-8 text",
    )


def pytest_configure(config: pytest.Config) -> None:
    k = config.getoption("chunkrecall_k")
    if k is not None and k < 1:
        raise pytest.UsageError(f"--chunkrecall-k must be at least 1, not {k}")
    config.stash[INI] = _ini_settings(config)
    config.stash[LOADER] = _ini_value(config, "loader") or None
    config.stash[K_OVERRIDE] = k
    config.stash[ENGINE] = Engine(config.rootpath)
    config.stash[DESCRIBED] = set()
    config.stash[GOLD_PATTERNS] = _gold_files(config)
    if not hasattr(config, "workerinput"):
        config.pluginmanager.register(Recorder(config), "chunkrecall-recorder")


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> GoldFile | None:
    if file_path.suffix not in (".yaml", ".yml"):
        return None
    chosen = parent.config.stash[GOLD_PATTERNS]
    if chosen is None:
        rootdir = parent.config.rootpath
        parts = (
            file_path.parent.relative_to(rootdir).parts if file_path.is_relative_to(rootdir) else ()
        )
        is_gold = "gold" in parts
    else:
        is_gold = file_path.resolve() in chosen
    if is_gold or parent.session.isinitpath(file_path):
        return GoldFile.from_parent(parent, path=file_path)
    return None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, Any, Any]:
    test_report = yield
    if isinstance(item, CaseItem) and (
        call.when == "call" or (call.when == "setup" and test_report.skipped)
    ):
        _attach(item, test_report)
    return test_report


def _attach(item: CaseItem, test_report: pytest.TestReport) -> None:
    """Put the case's result (and, once per process, its gold file's facts) on the report.

    Reports travel from xdist workers to the controller as JSON, so this is how
    the controller sees results without evaluating anything itself.
    """
    case = item.case
    if item.result is not None:
        test_report.chunkrecall = item.result.to_json()  # type: ignore[attr-defined]
    else:  # skipped, or its configuration failed: in the report, but with no verdict
        test_report.chunkrecall = {  # type: ignore[attr-defined]
            "gold_file": item.plan.name,
            "id": case.id,
            "line": case.line,
            "verdict": None,
            "rank": None,
            "span_split": None,
        }
    described = item.config.stash[DESCRIBED]
    if item.plan.name not in described and (
        item.result is not None or item.suite_error is not None
    ):
        described.add(item.plan.name)
        test_report.chunkrecall_gold = item.gold_info()  # type: ignore[attr-defined]


class Recorder:
    """Collects every case's result from the reports, then writes the summary and the JSON report.

    Registered only where reports are aggregated (a serial run, or the xdist
    controller); it never evaluates anything itself.
    """

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.cases: dict[str, dict[str, Any]] = {}
        self.gold_files: dict[str, dict[str, Any]] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        data = getattr(report, "chunkrecall", None)
        if data is None:
            return
        self.cases[report.nodeid] = {"nodeid": report.nodeid, **data, "outcome": _outcome(report)}
        info = getattr(report, "chunkrecall_gold", None)
        if info is not None:
            self.gold_files.setdefault(data["gold_file"], info)

    def results(self) -> list[CaseResult]:
        """The evaluated cases (skipped ones have no result), in gold-file order."""
        return [CaseResult.from_json(case) for case in self.ordered() if case.get("verdict")]

    def ordered(self) -> list[dict[str, Any]]:
        return sorted(self.cases.values(), key=lambda c: (c["gold_file"], c["line"], c["id"]))

    def to_json(self) -> dict[str, Any]:
        results = self.results()
        gold_files = []
        for path in sorted({c["gold_file"] for c in self.cases.values()}):
            mine = [r for r in results if r.gold_file == path]
            # A gold file none of whose cases ran was never chunked: null, not missing.
            facts = self.gold_files.get(path) or {"chunks": None, "corpus_chars": None}
            gold_files.append({"path": path, **facts, "totals": Totals.of(mine).to_json()})
        return {
            "chunkrecall_report": 1,
            "totals": Totals.of(results).to_json(),
            "gold_files": gold_files,
            "cases": self.ordered(),
        }

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.cases:
            return
        results = self.results()
        totals = Totals.of(results)
        terminalreporter.write_sep("=", "chunkrecall")
        terminalreporter.write_line(report.headline(totals), bold=True)
        for path in sorted({c["gold_file"] for c in self.cases.values()}):
            mine = [r for r in results if r.gold_file == path]
            for line in report.gold_file_lines(path, self.gold_files.get(path), mine):
                terminalreporter.write_line(line)
        terminalreporter.write_line(report.verdict_counts(totals))
        path = self.config.getoption("chunkrecall_report")
        unevaluated = len(self.unevaluated())
        if path and unevaluated:
            terminalreporter.write_line(
                f"chunkrecall: JSON report not written to {path}: "
                f"{unevaluated} case{'' if unevaluated == 1 else 's'} could not be evaluated",
                red=True,
            )
        elif path:
            terminalreporter.write_line(f"chunkrecall: JSON report written to {path}")

    def unevaluated(self) -> list[str]:
        """Cases that ran but have no verdict: their configuration or the user's code failed."""
        return [
            case["nodeid"]
            for case in self.ordered()
            if case.get("verdict") is None and case["outcome"] != "skipped"
        ]

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        # A report that leaves out the cases that could not be evaluated would
        # show a hit rate that nobody measured: write none.
        path = self.config.getoption("chunkrecall_report")
        if path and self.cases and not self.unevaluated():
            write_atomically(Path(path), json.dumps(self.to_json(), indent=2) + "\n")


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file, so readers never see half of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _outcome(test_report: pytest.TestReport) -> str:
    if hasattr(test_report, "wasxfail"):
        return "xfailed" if test_report.skipped else "xpassed"
    return test_report.outcome


def _ini_settings(config: pytest.Config) -> Settings:
    values: dict[str, Any] = {}
    origins: dict[str, str] = {}
    for key in SETTING_KEYS:
        raw = _ini_value(config, key)
        if not raw:
            continue
        option = f"chunkrecall_{key}"
        value: Any = raw
        if key in ("chunker_args", "retriever_args", "k", "fuzzy_threshold"):
            try:
                value = yaml.safe_load(raw)
            except yaml.YAMLError:
                raise pytest.UsageError(
                    f"ini option {option}: cannot read {raw!r} as YAML or JSON"
                ) from None
        if key == "corpus":
            value = list(raw)
        value, problem = check_setting(key, value)
        if problem:
            raise pytest.UsageError(f"ini option {option} {problem}")
        values[key] = value
        origins[key] = f"ini option {option}"
    return Settings(**values, corpus_base=config.rootpath, origins=origins)


def _ini_value(config: pytest.Config, key: str) -> Any:
    value = config.getini(f"chunkrecall_{key}")
    return value.strip() if isinstance(value, str) else value


def _gold_files(config: pytest.Config) -> set[Path] | None:
    patterns = config.getini("chunkrecall_gold")
    if not patterns:
        return None
    found = set()
    for pattern in patterns:
        for match in glob.glob(str(config.rootpath / pattern), recursive=True):
            found.add(Path(match).resolve())
    return found
