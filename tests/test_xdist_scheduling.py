"""Under ``-n 2`` a gold file's cases run on one worker, so each worker builds only the suites it uses."""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict

import pytest

from .conftest import Shop
from .test_scale import COUNTING, QUESTIONS, calls, counted, project, run, verdicts

pytest.importorskip("xdist")

__all__ = ["counted"]  # the fixture, imported for the tests below

PLAIN = """
import pytest

@pytest.mark.parametrize("number", range(40))
def test_plain(number):
    pass
"""

# Load refills a worker only when its queue runs low, so a worker that reaches the plain tests
# while the other is still busy with its gold file may legitimately be sent all of them. Here
# each worker's first plain test waits until every gold case has finished: the worker that got
# there first then holds a few plain tests, the other runs low while most are still pending,
# and load must send it some. Plain tests scheduled as one unit would still run on one worker.
# Every gold case is sent before any plain test, and none waits, so the wait always ends.
GOLD_CASES_DONE = """
import os
import time
from pathlib import Path

import pytest

GUARD = 120  # seconds: only against a gold case that never finishes, never what is measured


def pytest_runtest_logfinish(nodeid):
    if "PYTEST_XDIST_WORKER" in os.environ and nodeid.split("::")[0].endswith(".yaml"):
        (Path(os.environ["GOLD_DONE"]) / nodeid.replace("/", "_")).touch()


@pytest.fixture(scope="module")
def gold_cases_done():
    if "PYTEST_XDIST_WORKER" not in os.environ:
        return
    done = Path(os.environ["GOLD_DONE"])
    deadline = time.monotonic() + GUARD
    while len(list(done.iterdir())) < int(os.environ["GOLD_CASES"]):
        if time.monotonic() > deadline:
            pytest.fail(f"only {len(list(done.iterdir()))} gold cases finished")
        time.sleep(0.01)
"""

PLAIN_AFTER_GOLD = """
import pytest

@pytest.mark.parametrize("number", range(40))
def test_plain(number, gold_cases_done):
    pass
"""

# "[gw1] [ 45%] PASSED gold/facts0.yaml::q0-3": who ran what, as -v shows it
_RAN = re.compile(r"^\[(gw\d+)\] \[ *\d+%\] \w+ (\S+?)::(\S+)")


def workers_by_file(result: pytest.RunResult) -> dict[str, set[str]]:
    """Each file's tests, as the workers that ran them."""
    ran: dict[str, set[str]] = defaultdict(set)
    for line in result.outlines:
        found = _RAN.match(line)
        if found:
            ran[found[2]].add(found[1])
    return dict(ran)


def two_files_and_plain_tests(shop: Shop) -> list[str]:
    asked = project(shop, copies=2)
    shop.write("test_plain.py", PLAIN)
    return asked


@pytest.mark.parametrize(
    "loaded", ["by entry point", pytest.param("with -p xdist.plugin", marks=pytest.mark.slow)]
)
def test_each_gold_file_runs_on_one_worker_and_plain_tests_on_both(counted, monkeypatch, loaded):
    asked = project(counted, copies=2)
    counted.write("test_plain.py", PLAIN_AFTER_GOLD)
    counted.write("conftest.py", GOLD_CASES_DONE)
    done = counted.path / "gold_done"
    done.mkdir()
    monkeypatch.setenv("GOLD_DONE", str(done))
    monkeypatch.setenv("GOLD_CASES", str(len(asked)))
    serial, plain = run(
        counted, "-p", "no:xdist", "-o", "chunkrecall_batch_size=4", subprocess=True
    )
    serial.assert_outcomes(passed=60)
    calls(counted)
    plugins: tuple[str, ...] = ()
    if loaded != "by entry point":
        monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
        plugins = ("-p", "xdist.plugin", "-p", "pytest_chunkrecall.plugin")
    parallel, report = run(
        counted, *plugins, "-n", "2", "-v", "-o", "chunkrecall_batch_size=4", subprocess=True
    )
    parallel.assert_outcomes(passed=60)
    ran = workers_by_file(parallel)
    assert len(ran["gold/facts0.yaml"]) == len(ran["gold/facts1.yaml"]) == 1, ran
    assert ran["test_plain.py"] == {"gw0", "gw1"}
    made = calls(counted)
    sent = Counter(q for c in made for q in c["questions"])
    assert sorted(sent) == sorted(asked)
    assert set(sent.values()) == {1}, "a question was sent twice"
    # a worker's queue holds its whole file, so its questions go in full batches
    assert sorted(len(c["questions"]) for c in made) == [2, 2, 4, 4, 4, 4]
    assert verdicts(report) == verdicts(plain)
    assert report["totals"] == plain["totals"]


@pytest.mark.slow
def test_turned_off_the_gold_files_are_chunked_as_xdist_load_does(counted):
    """The check above can fail: without the scheduler, load's chunks cut a gold file."""
    two_files_and_plain_tests(counted)
    parallel, report = run(
        counted, "-n", "2", "-v", "-o", "chunkrecall_xdist_group=false", subprocess=True
    )
    parallel.assert_outcomes(passed=60)
    ran = workers_by_file(parallel)
    assert {"gw0", "gw1"} in (ran["gold/facts0.yaml"], ran["gold/facts1.yaml"]), ran
    sent = Counter(q for c in calls(counted) for q in c["questions"])
    assert set(sent.values()) == {1}
    assert report["totals"]["cases"] == 20


@pytest.mark.slow
def test_a_gold_file_larger_than_a_workers_share_is_split_over_both(counted):
    counted.write("counting.py", COUNTING)
    counted.ini("chunkrecall_retriever = counting:build\n")
    asked = [f"{q} {copy}" if copy else q for copy in range(4) for q, _ in QUESTIONS]
    cases = "".join(
        f"  - id: r{n}\n    question: {question}\n    needle: {QUESTIONS[n % 10][1]}\n"
        for n, question in enumerate(asked)
    )
    counted.gold("corpus: ../docs/*.md\nchunker: rag:sentences\nk: 2\ncases:\n" + cases)
    parallel, report = run(counted, "-n", "2", "-v", subprocess=True)
    assert report["totals"]["cases"] == 40
    # alone in the run, the file is all of it: kept whole, one worker would do everything
    assert workers_by_file(parallel)["gold/policies.yaml"] == {"gw0", "gw1"}
    sent = Counter(q for c in calls(counted) for q in c["questions"])
    assert sorted(sent) == sorted(asked) and set(sent.values()) == {1}


@pytest.mark.slow
def test_a_crashed_worker_costs_only_its_own_test(counted):
    two_files_and_plain_tests(counted)
    counted.write("test_crash.py", "import os\n\ndef test_crash():\n    os._exit(3)\n")
    result, report = run(counted, "-n", "2", subprocess=True)
    result.assert_outcomes(passed=60, failed=1)
    result.stdout.fnmatch_lines(["*replacing crashed worker*"])
    assert len(report["cases"]) == 20
    assert {c["verdict"] for c in report["cases"]} == {"hit"}


@pytest.mark.slow
@pytest.mark.parametrize("dist", ["loadfile", "each"])
def test_other_dist_modes_schedule_as_xdist_does(counted, dist):
    asked = two_files_and_plain_tests(counted)
    result, _ = run(counted, "-n", "2", "-v", "--dist", dist, subprocess=True)
    ran = workers_by_file(result)
    sent = Counter(q for c in calls(counted) for q in c["questions"])
    if dist == "loadfile":
        result.assert_outcomes(passed=60)
        assert len(ran["test_plain.py"]) == 1  # a file is loadfile's unit, plain tests too
        assert set(sent.values()) == {1}
    else:
        result.assert_outcomes(passed=120)  # every test on every worker
        assert sent == Counter({question: 2 for question in asked})


# A chunker that logs which process chunked which document, and a conftest that
# logs, on each worker at its end, whether the controller's modules were imported.
LOGGING_CHUNKER = """
import json, os

import rag


def log(**entry):
    entry["worker"] = os.environ.get("PYTEST_XDIST_WORKER", "serial")
    with open(os.environ["CHUNKED"], "a", encoding="utf-8") as out:
        out.write(json.dumps(entry) + "\\n")


def sentences(text):
    log(chunked=text[:20])
    return rag.sentences(text)
"""

WORKER_MODULES = """
import sys

from logging_chunker import log

CONTROLLER_ONLY = (
    "plugin.owner",
    "run.fold",
    "run.spool",
    "render.summary",
    "render.json_report",
    "render.html",
)


def pytest_sessionfinish(session):
    if hasattr(session.config, "workerinput"):
        log(loaded=[m for m in CONTROLLER_ONLY if f"pytest_chunkrecall.{m}" in sys.modules])
"""


def test_a_worker_chunks_only_the_corpora_of_its_own_gold_files(shop, monkeypatch):
    """A worker reads and plans every gold file (collections must agree), but builds no suite
    for a file another worker runs, and loads none of the modules that gather the run."""
    log = shop.path / "chunked.log"
    monkeypatch.setenv("CHUNKED", str(log))
    shop.write("logging_chunker.py", LOGGING_CHUNKER)
    shop.write("conftest.py", WORKER_MODULES)
    shop.ini(
        "chunkrecall_retriever = rag:keywords\nchunkrecall_chunker = logging_chunker:sentences\n"
    )
    firsts = {"policies": "", "care": ""}
    for corpus, facts in (("policies", QUESTIONS[:4]), ("care", QUESTIONS[5:8])):
        firsts[corpus] = (shop.path / f"docs/{corpus}.md").read_text(encoding="utf-8")[:20]
        cases = "".join(
            f"  - id: c{n}\n    question: {question}\n    needle: {needle}\n"
            for n, (question, needle) in enumerate(facts)
        )
        shop.gold(f"corpus: ../docs/{corpus}.md\nk: 2\ncases:\n{cases}", f"gold/{corpus}.yaml")
    shop.write("test_plain.py", PLAIN)
    result, report = run(shop, "-n", "2", "-v", subprocess=True)
    result.assert_outcomes(passed=47)
    assert [c["verdict"] for c in report["cases"]] == ["hit"] * 7
    ran = workers_by_file(result)
    entries = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    chunked = Counter((e["worker"], e["chunked"]) for e in entries if "chunked" in e)
    # each corpus chunked once in the whole run, by the one worker that ran its file
    assert chunked == Counter(
        {(worker, firsts[corpus]): 1 for corpus in firsts for worker in ran[f"gold/{corpus}.yaml"]}
    )
    assert all(len(ran[f"gold/{corpus}.yaml"]) == 1 for corpus in firsts), ran
    loaded = {e["worker"]: e["loaded"] for e in entries if "loaded" in e}
    assert loaded == {"gw0": [], "gw1": []}


def test_the_switch_must_be_true_or_false(counted):
    project(counted)
    result = counted.pytester.runpytest("-o", "chunkrecall_xdist_group=sometimes")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*ini option chunkrecall_xdist_group must be true or false, not 'sometimes'*"]
    )


def test_a_file_is_kept_whole_up_to_a_workers_share():
    from pytest_chunkrecall.plugin.scheduling import whole_files

    collection = [f"gold/a.yaml::{n}" for n in range(3)] + [f"gold/b.yaml::{n}" for n in range(5)]
    collection += ["test_x.py::test_one", "notes.yaml::t"]

    def is_gold(name: str) -> bool:
        return name.startswith("gold/")

    # 10 tests over 2 workers: a share is 5, so b (5) is whole; over 3 workers b is split
    assert whole_files(collection, is_gold, workers=2) == ["gold/a.yaml"] * 3 + [
        "gold/b.yaml"
    ] * 5 + [None, None]
    assert whole_files(collection, is_gold, workers=3) == ["gold/a.yaml"] * 3 + [None] * 7


def test_help_names_the_switch(pytester):
    result = pytester.runpytest("--help")
    result.stdout.fnmatch_lines(
        ["  chunkrecall_xdist_group (string*):", "*Under pytest-xdist*send all cases of a*"]
    )


SCHEDULER_LOADED = """
import sys


def pytest_sessionfinish(session):
    if not hasattr(session.config, "workerinput"):
        loaded = "pytest_chunkrecall.plugin.scheduling" in sys.modules
        print("scheduler imported:", loaded)
"""


@pytest.mark.parametrize(("options", "imported"), [((), False), (("-n", "2"), True)])
def test_only_a_distributed_run_imports_the_scheduler(shop, options, imported):
    """xdist installed is not xdist used: a run without -n never imports xdist's scheduler."""
    shop.write("conftest.py", SCHEDULER_LOADED)
    shop.gold(
        """
        corpus: ../docs/*.md
        chunker: rag:sentences
        retriever: rag:keywords
        cases:
          - question: How many days do I have to return an item?
            needle: 30 days
        """
    )
    result = shop.pytester.runpytest_subprocess("-s", *options)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert f"scheduler imported: {imported}" in result.stdout.str()
