"""Shared scenery: a small storefront corpus and the project a user would build around it."""

from __future__ import annotations

import contextlib
import difflib
import functools
import importlib
import json
import os
import pkgutil
import re
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import settings

import pytest_chunkrecall
from pytest_chunkrecall.evaluation.results import CaseResult

# Libraries with C extensions that cannot be loaded twice in one process: imported here,
# before any in-process pytester run takes its snapshot of sys.modules and drops what the
# run imported, so that a test importing them after such a run finds them still loaded.
# (jsonschema, above, for another reason: a test that imported it after its snapshot would
# import it again in every test that checks a report.)
for _module in ("numpy", "scipy.stats"):
    with contextlib.suppress(ImportError):  # optional test dependencies: their tests skip
        __import__(_module)
# Every module of the plugin, too: it imports some only where a run needs them (the run's
# owner, the page's renderer, the xdist scheduler, rapidfuzz), and each in-process run would
# otherwise import them, and rewrite their asserts, anew. A test of what a run imports runs
# its pytest in a new process.
for _plugin_module in pkgutil.walk_packages(pytest_chunkrecall.__path__, "pytest_chunkrecall."):
    if not _plugin_module.name.endswith(".__main__"):
        importlib.import_module(_plugin_module.name)

# Properties build suites and fold text: timing varies on a loaded CI machine, results do not.
# The default run tries hypothesis's usual 100 examples a property; CI also runs every property
# with five times as many (pytest -m hypothesis --hypothesis-profile=thorough).
settings.register_profile("chunkrecall", deadline=None)
settings.register_profile("thorough", deadline=None, max_examples=500)
settings.load_profile("chunkrecall")

# The demo corpus of the boundary-cut article: 502 characters, five facts.
LEAD = "Support knowledge base for the storefront. Read every policy below. "
HERO = "The refund window is 30 days from the delivery date confirmed by carrier. "
BODY = (
    "Express shipping takes 2 business days nationwide for in-stock goods now. "
    "Warranty coverage runs 12 months from the original purchase date on file. "
    "A restocking fee of 15 percent applies to opened or clearly used returns. "
)
CEIL = (
    "Customs clearance for international parcels routed through the distant "
    "regional sorting hub is billed at 9 dollars per kilogram of weight."
)
POLICIES = LEAD + HERO + BODY + CEIL

# Its five facts as gold cases; the last (customs) is the one no 80-character window holds.
STOREFRONT_CASES = """\
cases:
  - id: refund-window
    question: What is the refund window?
    needle: 30 days
    span: The refund window is 30 days
  - id: express
    question: How long does express shipping take?
    needle: 2 business days
    span: Express shipping takes 2 business days
  - id: warranty
    question: warranty coverage
    needle: 12 months
  - id: restocking
    question: What is the restocking fee?
    needle: 15 percent
  - id: customs
    question: How much is customs clearance?
    needle: 9 dollars
    span: {from: Customs clearance, to: 9 dollars}
"""

# A second, unrelated document, so that "which document" is never trivially the only one.
CARE = (
    "Caring for leather goods: wipe with a dry cloth once a week.\n"
    "Never  soak the leather in water; stains come out with saddle soap.\n"
    "Store bags stuffed with paper so they keep their shape.\n"
)

# The user's own RAG code, as they would write it in their project.
RAG = '''
"""A storefront's own retrieval code."""


def keywords(chunks, rankings=None):
    """Chunks holding the most question words (as substrings) first; ties go to the earlier.

    ``rankings`` pins the answer for chosen questions: {question: [chunk index, ...]}.
    """
    rankings = rankings or {}

    def search(question, k):
        if question in rankings:
            return list(rankings[question])[:k]
        words = question.lower().split()
        score = [sum(w in chunk.text.lower() for w in words) for chunk in chunks]
        return sorted(range(len(chunks)), key=lambda i: (-score[i], i))[:k]

    return search


def sentences(text, **ignored):
    """One chunk per sentence, as plain strings."""
    out, start = [], 0
    for i, ch in enumerate(text):
        if ch in ".\\n" and i + 1 - start > 1:
            out.append(text[start : i + 1])
            start = i + 1
    if text[start:].strip():
        out.append(text[start:])
    return [s for s in out if s.strip()]
'''

# Plugins of the test environment that the user's project has no use for: a pytest in a new
# process spends ~3 s of CPU importing them, and in-process runs would register them again.
QUIET = ("-p", "no:hypothesispytest", "-p", "no:langsmith_plugin", "-p", "no:anyio")
# The same, for the environment of a process that runs pytest.
QUIET_ADDOPTS = " ".join(QUIET)

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "chunking_evaluation"


def lines(*patterns: str) -> list[str]:
    """fnmatch patterns in which only ``*`` is a wildcard (failure messages are full of ``[0:80]``)."""
    return [p.replace("[", "[[]").replace("?", "[?]") for p in patterns]


def dedent(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


class Shop:
    """A user's project on disk: a corpus in docs/, rag.py, an ini file and gold files."""

    def __init__(self, pytester: pytest.Pytester) -> None:
        self.pytester = pytester
        self.path = pytester.path
        self.write("docs/policies.md", POLICIES)
        self.write("docs/care.md", CARE)
        self.write("rag.py", RAG)
        self.ini()

    def write(self, name: str, text: str | bytes) -> Path:
        path = self.path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
        return path

    def ini(self, extra: str = "") -> Path:
        """pytest.ini with the project folder importable (rag.py, user modules)."""
        return self.write("pytest.ini", "[pytest]\npythonpath = .\n" + dedent(extra))

    def gold(self, text: str, name: str = "gold/policies.yaml") -> Path:
        return self.write(name, dedent(text))

    def run(self, *args: str) -> pytest.RunResult:
        return self.pytester.runpytest(*QUIET, *args)

    def report(self, *args: str) -> tuple[pytest.RunResult, dict[str, Any]]:
        """Run with --chunkrecall-report and return the result and the parsed report."""
        path = self.path / "chunkrecall.json"
        path.unlink(missing_ok=True)
        result = self.run("--chunkrecall-report", str(path), *args)
        assert path.exists(), result.stdout.str()
        report = json.loads(path.read_text(encoding="utf-8"))
        check_report(report)
        return result, report

    def cases(self, *args: str) -> dict[str, dict[str, Any]]:
        """The report's cases by id."""
        _, data = self.report(*args)
        return {case["id"]: case for case in data["cases"]}


def a_hit() -> CaseResult:
    """The record of a plain hit: one needle, found at rank 1 of 5."""
    return CaseResult(
        gold_file="gold/a.yaml",
        id="refund",
        line=4,
        question="Refund window?",
        needles=["30 days"],
        span=None,
        verdict="hit",
        rank=1,
        span_split=False,
        k=5,
        match="normalized",
        needle_lengths=[7],
        span_length=7,
        unit="chars",
    )


REPORT_SCHEMA = (
    Path(__file__).resolve().parents[1] / "pytest_chunkrecall" / "render" / "report.schema.json"
)


def check_report(report: dict[str, Any]) -> None:
    """Validate a JSON report against the schema the repository ships."""
    _report_validator().validate(report)


@functools.cache
def _report_validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(REPORT_SCHEMA.read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(schema)


@pytest.fixture(autouse=True)
def _every_report_is_valid(request: pytest.FixtureRequest) -> Iterator[None]:
    """Whatever JSON report a pytester scenario wrote, it must match the shipped schema."""
    if "pytester" not in request.fixturenames:
        yield
        return
    folder = request.getfixturevalue("pytester").path
    yield
    for path in folder.rglob("*.json"):
        if path.is_symlink() or not path.is_file():
            continue  # a FIFO or device a scenario made: opening it would block
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            continue  # not JSON, or a file a scenario broke on purpose
        # a report of another format is a scenario's deliberately foreign input
        if isinstance(data, dict) and data.get("chunkrecall_report") == 1:
            check_report(data)


@pytest.fixture(autouse=True)
def _no_step_summary(monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs inside GitHub Actions must not append the tests' summaries to the real job page,
    nor print workflow commands into the scenarios' output."""
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)


@pytest.fixture(scope="session")
def _bytecode(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the processes the tests start keep the bytecode they compile: one folder for the
    session (and its xdist workers), outside the checkout."""
    return tmp_path_factory.getbasetemp().parent / "bytecode"


@pytest.fixture(autouse=True)
def _quiet_inner_runs(request: pytest.FixtureRequest, _bytecode: Path) -> Iterator[None]:
    """Every pytest a test starts, in-process or in a new process, leaves out QUIET's plugins.

    A new process keeps the bytecode it compiles, as an installed package has it: a machine
    that sets PYTHONDONTWRITEBYTECODE would otherwise have each one compile the plugin, and
    pytest rewrite its asserts, from source again. Set after pytester, which clears
    PYTEST_ADDOPTS when it starts, and undone before it."""
    if "pytester" in request.fixturenames:
        request.getfixturevalue("pytester")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTEST_ADDOPTS", QUIET_ADDOPTS)
        patch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
        patch.setenv("PYTHONPYCACHEPREFIX", str(_bytecode))
        yield


@pytest.fixture
def shop(pytester: pytest.Pytester) -> Shop:
    return Shop(pytester)


def assert_no_internals(result: pytest.RunResult) -> None:
    """No frame of this package's source and no Python traceback reaches the user."""
    package = "pytest_chunkrecall" + os.sep
    output = result.outlines + result.errlines
    leaks = [line for line in output if package in line or "Traceback (most recent" in line]
    assert not leaks, "\n".join(output)


@pytest.fixture
def chunking_evaluation() -> Iterator[Path]:
    """The shared chunking-evaluation data (real corpora), when it sits beside the repo."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data not found at {SHARED_DATA}")
    yield SHARED_DATA


# ---------------------------------------------------------------- golden outputs

GOLDEN = Path(__file__).resolve().parent / "golden"
# Golden files of -rx output hold pytest 8.3's form of it.
RX_AS_PYTEST_8_3_PRINTS_IT = pytest.mark.skipif(
    tuple(int(part) for part in pytest.__version__.split(".")[:2]) < (8, 3),
    reason="pytest before 8.3 lists -rx otherwise: 'reason: ' before each expected failure's "
    "reason, and its traceback",
)
# No cache, and the cases in file order: the options of every golden scenario's pytest run.
GOLDEN_ARGS = (*QUIET, "-p", "no:cacheprovider", "-p", "no:randomly")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="Rewrite the golden terminal outputs under tests/golden from this run",
    )


# What differs between two runs of the same scenario, and what it is shown as in a golden file.
_MASKS = (
    # a duration: "in 0.97s", "in 62.10s (0:01:02)"
    (re.compile(r"\bin \d+(\.\d+)?s( \(\d+:\d\d:\d\d\))?"), "in <duration>"),
    # pytest's header lines name the machine, the interpreter and the installed plugins
    (re.compile(r"^platform .*$", re.MULTILINE), "platform <masked>"),
    (re.compile(r"^(rootdir|plugins|cachedir): .*$", re.MULTILINE), r"\1: <masked>"),
    # pytest 8.3 and older write "reason: " before an imperative xfail's reason
    (re.compile(r"^(XFAIL .*? - )reason: ", re.MULTILINE), r"\1"),
)
# A separator line's width follows the text it frames (a duration of another length moves it).
_SEPARATOR = re.compile(r"^([=_!-])\1{2,}(?: (.*?) \1+)?$", re.MULTILINE)


def stable(text: str, *folders: Path) -> str:
    """``text`` with durations, platform lines, separator widths and ``folders`` masked."""
    for folder in folders:
        for spelling in {str(folder), str(folder.resolve())}:
            text = text.replace(spelling, "<project>")
    for pattern, replacement in _MASKS:
        text = pattern.sub(replacement, text)
    text = _SEPARATOR.sub(lambda m: f"{m[1] * 3} {m[2]} {m[1] * 3}" if m[2] else m[1] * 3, text)
    return "\n".join(line.rstrip() for line in text.splitlines()) + "\n"


class Golden:
    """A scenario's terminal output, compared with (or, under --update-golden, written to)
    ``tests/golden/<name>.txt``."""

    def __init__(self, request: pytest.FixtureRequest, pytester: pytest.Pytester) -> None:
        self.update = bool(request.config.getoption("--update-golden"))
        self.pytester = pytester

    def run(self, *args: str) -> pytest.RunResult:
        """The scenario's pytest run, in process, with the options every golden file assumes."""
        return self.pytester.runpytest(*GOLDEN_ARGS, *args)

    def check(self, name: str, command: str, result: pytest.RunResult) -> None:
        """``command`` is how a user would type the scenario's command line."""
        output = "\n".join(result.outlines + result.errlines)
        shown = stable(f"$ {command}\n{output}\nexit status {int(result.ret)}", self.pytester.path)
        path = GOLDEN / f"{name}.txt"
        if self.update:
            path.parent.mkdir(exist_ok=True)
            path.write_text(shown, encoding="utf-8")
            return
        assert path.exists(), f"{path} is missing: run the tests with --update-golden"
        expected = path.read_text(encoding="utf-8")
        if shown != expected:
            diff = difflib.unified_diff(
                expected.splitlines(), shown.splitlines(), str(path), "this run", lineterm=""
            )
            pytest.fail(
                "the output differs from its golden file; if the change is meant, run the "
                "tests with --update-golden and review the diff\n" + "\n".join(diff),
                pytrace=False,
            )


@pytest.fixture
def golden(
    request: pytest.FixtureRequest, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> Golden:
    # One terminal for every machine: a fixed width, no colour, the short summary untrimmed.
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("PY_COLORS", "0")
    # PYTEST_ADDOPTS stays QUIET_ADDOPTS (see _quiet_inner_runs), the same on every machine.
    for name in ("FORCE_COLOR", "NO_COLOR", "GITHUB_ACTIONS"):
        monkeypatch.delenv(name, raising=False)
    return Golden(request, pytester)
