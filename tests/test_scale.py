"""Batches, calls in flight and xdist workers: fewer, overlapping retriever calls, the same verdicts."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from .conftest import QUIET, Shop, assert_no_internals

# A retriever that logs every call it gets (process, kind, questions) to $CALLS,
# offering search_batch unless told not to; "boom" in a question makes it raise.
# With ``overlap``, the first call waits until a second call is in flight beside it (and fails
# if none comes); with ``hold``, every call waits until the file of that name exists.
COUNTING = """
import json, os, threading, time

LOCK = threading.Lock()
IN_FLIGHT = [0]
SECOND = threading.Event()
FIRST = [True]
GUARD = 60  # seconds: only against a run that would hang, never what a test measures


def log(kind, questions):
    with LOCK, open(os.environ["CALLS"], "a", encoding="utf-8") as out:
        IN_FLIGHT[0] += 1
        if IN_FLIGHT[0] > 1:
            SECOND.set()
        first, FIRST[0] = FIRST[0], False
        out.write(json.dumps({"pid": os.getpid(), "kind": kind, "questions": questions,
                              "in_flight": IN_FLIGHT[0]}) + "\\n")
    return first


def done():
    with LOCK:
        IN_FLIGHT[0] -= 1


class Counting:
    def __init__(self, chunks, overlap, hold, wrong):
        self.chunks, self.overlap, self.hold, self.wrong = chunks, overlap, hold, wrong

    def wait(self, first):
        if self.overlap and first and not SECOND.wait(GUARD):
            raise RuntimeError("no second call came while the first was in flight")
        if self.hold:
            deadline = time.monotonic() + GUARD
            while not os.path.exists(self.hold) and time.monotonic() < deadline:
                time.sleep(0.01)

    def rank(self, question, k):
        if "boom" in question:
            raise ValueError(f"cannot search {question!r}")
        words = question.lower().split()
        score = [sum(w in c.text.lower() for w in words) for c in self.chunks]
        return sorted(range(len(self.chunks)), key=lambda i: (-score[i], i))[:k]

    def search(self, question, k):
        first = log("search", [question])
        try:
            self.wait(first)
            return self.rank(question, k)
        finally:
            done()


class Batching(Counting):
    def search_batch(self, questions, k):
        first = log("search_batch", questions)
        try:
            self.wait(first)
            found = [self.rank(q, k) for q in questions]
            return found[:-1] if self.wrong else found
        finally:
            done()


def build(chunks, batch=True, overlap=False, hold=None, wrong=False):
    return (Batching if batch else Counting)(chunks, overlap, hold, wrong)
"""

# Sentences of the storefront corpus: one case per fact, every one a hit at k 1 or 2.
QUESTIONS = [
    ("refund window 30 days", "30 days"),
    ("express shipping business days", "2 business days"),
    ("warranty coverage months", "12 months"),
    ("restocking fee percent", "15 percent"),
    ("customs clearance dollars", "9 dollars"),
    ("leather dry cloth week", "once a week"),
    ("soak leather water", "saddle soap"),
    ("bags stuffed paper", "keep their shape"),
    ("policy read every", "Read every policy"),
    ("knowledge base storefront", "Support knowledge base"),
]


def project(shop: Shop, *, copies: int = 1, extra: str = "") -> list[str]:
    """Gold files of the questions (``copies`` times over, each with its own id); the questions."""
    shop.write("counting.py", COUNTING)
    shop.ini("chunkrecall_retriever = counting:build\n")
    asked = []
    for copy in range(copies):
        cases = []
        for number, (question, needle) in enumerate(QUESTIONS):
            text = f"{question} {copy}" if copy else question
            asked.append(text)
            cases.append(f"  - id: q{copy}-{number}\n    question: {text}\n    needle: {needle}\n")
        shop.gold(
            "corpus: ../docs/*.md\nchunker: rag:sentences\nk: 2\n"
            + extra
            + "cases:\n"
            + "".join(cases),
            f"gold/facts{copy}.yaml",
        )
    return asked


def calls(shop: Shop) -> list[dict[str, Any]]:
    path = shop.path / "calls.log"
    found = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    path.unlink()
    return found


def run(
    shop: Shop, *args: str, subprocess: bool = False
) -> tuple[pytest.RunResult, dict[str, Any]]:
    report = shop.path / "r.json"
    report.unlink(missing_ok=True)
    runner = shop.pytester.runpytest_subprocess if subprocess else shop.pytester.runpytest
    result = runner(*QUIET, "-p", "no:randomly", "--chunkrecall-report", str(report), *args)
    assert report.exists(), result.stdout.str()
    return result, json.loads(report.read_text(encoding="utf-8"))


def verdicts(report: dict[str, Any]) -> dict[str, Any]:
    return {c["nodeid"]: (c["verdict"], c["rank"], c["outcome"]) for c in report["cases"]}


@pytest.fixture
def counted(shop: Shop, monkeypatch: pytest.MonkeyPatch) -> Shop:
    monkeypatch.setenv("CALLS", str(shop.path / "calls.log"))
    return shop


def test_search_batch_gets_the_questions_in_batches_and_the_verdicts_stay(counted):
    asked = project(counted, copies=2)
    one_by_one, plain = run(counted, "-o", "chunkrecall_retriever_args={batch: false}")
    singles = calls(counted)
    batched, report = run(counted, "-o", "chunkrecall_batch_size=4")
    made = calls(counted)
    one_by_one.assert_outcomes(passed=20)
    batched.assert_outcomes(passed=20)
    assert [c["kind"] for c in singles] == ["search"] * 20
    # Each gold file's ten questions in batches of 4, 4 and 2, in the order the cases run.
    assert [(c["kind"], len(c["questions"])) for c in made] == [
        ("search_batch", n) for n in (4, 4, 2)
    ] * 2
    assert [q for c in made for q in c["questions"]] == asked
    assert verdicts(report) == verdicts(plain)
    assert report["totals"] == plain["totals"]


def test_a_batch_that_raises_is_asked_again_question_by_question(counted):
    project(counted)
    text = (counted.path / "gold/facts0.yaml").read_text()
    counted.write("gold/facts0.yaml", text.replace("warranty coverage months", "warranty boom"))
    result, report = run(counted, "-o", "chunkrecall_batch_size=4")
    result.assert_outcomes(passed=9, failed=1)
    made = calls(counted)
    assert [c["kind"] for c in made] == ["search_batch"] + ["search"] * 4 + ["search_batch"] * 2
    result.stdout.fnmatch_lines(
        ["*q0-2*", "*retriever counting:build raised ValueError: cannot search 'warranty boom'*"]
    )
    assert_no_internals(result)
    assert [c["verdict"] for c in report["cases"] if c["id"] == "q0-2"] == [None]


def test_a_search_batch_with_too_few_lists_fails_its_cases_and_says_the_counts(counted):
    project(counted)
    result, report = run(
        counted, "-o", "chunkrecall_batch_size=4", "-o", "chunkrecall_retriever_args={wrong: true}"
    )
    result.assert_outcomes(failed=10)
    result.stdout.fnmatch_lines(
        ["*retriever counting:build: search_batch returned 3 result lists for 4 questions*"]
    )
    assert {c["verdict"] for c in report["cases"]} == {None}
    assert_no_internals(result)


def test_concurrency_keeps_calls_in_flight_and_the_verdicts_stay(counted):
    project(counted, copies=2)
    serial, plain = run(counted, "-o", "chunkrecall_retriever_args={batch: false}")
    serial.assert_outcomes(passed=20)
    assert max(c["in_flight"] for c in calls(counted)) == 1
    # The first call returns only once a second one is in flight beside it: one at a time, the
    # first case would fail.
    concurrent, report = run(
        counted,
        "-o",
        "chunkrecall_retriever_args={batch: false, overlap: true}",
        "-o",
        "chunkrecall_concurrency=5",
    )
    made = calls(counted)
    concurrent.assert_outcomes(passed=20)
    assert set(Counter(q for c in made for q in c["questions"]).values()) == {1}
    assert len(made) == 20
    assert max(c["in_flight"] for c in made) > 1
    assert verdicts(report) == verdicts(plain)


def test_each_case_keeps_its_own_error_with_calls_in_flight(counted):
    project(counted)
    text = (counted.path / "gold/facts0.yaml").read_text()
    counted.write("gold/facts0.yaml", text.replace("soak leather water", "soak boom"))
    result, _ = run(
        counted,
        "-o",
        "chunkrecall_retriever_args={batch: false}",
        "-o",
        "chunkrecall_concurrency=4",
    )
    result.assert_outcomes(passed=9, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*q0-6: soak boom*",
            "*raised ValueError: cannot search 'soak boom' for the question 'soak boom'*",
        ]
    )


@pytest.mark.parametrize(
    ("option", "value"),
    [("batch_size", "0"), ("batch_size", "lots"), ("concurrency", "-2"), ("concurrency", "2.5")],
)
def test_a_batch_size_or_concurrency_that_is_no_whole_number_from_1_is_a_usage_error(
    shop, option, value
):
    project(shop)
    result = shop.run("-o", f"chunkrecall_{option}={value}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [f"*ini option chunkrecall_{option} must be a whole number from 1 *, not *{value}*"]
    )
    assert "passed" not in result.stdout.str()


def test_two_workers_never_ask_the_same_question(counted):
    pytest.importorskip("xdist")
    asked = project(counted, copies=4)
    serial, plain = run(counted, "-o", "chunkrecall_batch_size=4")
    serial.assert_outcomes(passed=40)
    calls(counted)
    parallel, report = run(
        counted, "-n", "2", "-o", "chunkrecall_batch_size=4", "-o", "chunkrecall_concurrency=2",
        subprocess=True,
    )  # fmt: skip
    made = calls(counted)
    parallel.assert_outcomes(passed=40)
    sent = Counter(q for c in made for q in c["questions"])
    assert sorted(sent) == sorted(asked)
    assert set(sent.values()) == {1}, "a question was sent twice"
    assert len({c["pid"] for c in made}) == 2
    assert any(len(c["questions"]) > 1 for c in made)
    assert verdicts(report) == verdicts(plain)
    assert report["totals"] == plain["totals"]


def test_ctrl_c_stops_a_run_with_calls_in_flight_and_sends_no_more(counted):
    project(counted, copies=4)
    release = counted.path / "release"
    counted.ini(
        "chunkrecall_retriever = counting:build\nchunkrecall_concurrency = 4\n"
        f"chunkrecall_retriever_args = {{batch: false, hold: '{release}'}}\n"
    )
    environment = {
        **os.environ,
        "PYTEST_ADDOPTS": "",
        "PYTHONPATH": os.pathsep.join(sys.path),
        "PYTHONUNBUFFERED": "1",  # each line reaches the pipe as it is printed
    }
    # Ctrl-C is handled as a terminal sends it, however this suite was started: a job
    # started in the background of a shell (`&`) ignores SIGINT, and hands that on.
    interruptible = (
        "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
        "import pytest; sys.exit(pytest.main(sys.argv[1:]))"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", interruptible, *QUIET, "-p", "no:cacheprovider", "gold"],
        cwd=counted.path,
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    output: list[bytes] = []
    interrupted = threading.Event()

    def read() -> None:
        for line in process.stdout:  # type: ignore[union-attr]
            output.append(line)
            if b"KeyboardInterrupt" in line:
                interrupted.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    log = counted.path / "calls.log"
    try:
        # Four calls held in flight, then Ctrl-C; the calls are let go only once the run has
        # printed that it was interrupted, so no call can end (and no next one start) before.
        assert wait_for(lambda: log.exists() and log.read_text().count("\n") == 4), "no calls"
        process.send_signal(signal.SIGINT)
        assert interrupted.wait(GUARD), b"".join(output).decode()
    finally:
        release.touch()
        process.wait(timeout=GUARD)
        reader.join(GUARD)
    assert process.returncode == pytest.ExitCode.INTERRUPTED, b"".join(output).decode()
    # 40 questions, 4 in flight when interrupted: the 36 queued behind them were never sent.
    assert log.read_text().count("\n") == 4


GUARD = 60  # seconds: only against a scenario that would hang, never what a test measures


def wait_for(condition: Callable[[], bool]) -> bool:
    """Whether ``condition`` came true before the guard ran out."""
    deadline = time.monotonic() + GUARD
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_a_verdict_maps_back_only_the_occurrences_before_the_first_whole_one(monkeypatch):
    from pytest_chunkrecall.chunkers import fixed_size
    from pytest_chunkrecall.corpus import Document
    from pytest_chunkrecall.evaluation.finder import Finder
    from pytest_chunkrecall.evaluation.suite import Component, SuiteCache
    from pytest_chunkrecall.text.matcher import Matcher

    # "common" occurs 5,000 times; every window of 60 holds one whole.
    text = " ".join(f"common w{n:04d}" for n in range(5000))
    docs = (Document("d.md", text),)
    chunker = Component.of("fixed_size", fixed_size, {"size": 60, "overlap": 20})
    suite = SuiteCache().suite(docs, chunker, Component.of("none", lambda chunks: lambda q, k: []))
    matcher = Matcher("normalized")
    finder = suite.finder(matcher)
    mapped = []
    original = Finder._original

    def counted(self, doc_no, start, end):
        mapped.append(start)
        return original(self, doc_no, start, end)

    monkeypatch.setattr(Finder, "_original", counted)
    location = finder.locate(matcher.prepare("common"))
    assert location.whole and location.occurrence.start == 0
    assert mapped == [0]
    assert len(list(finder.occurrences(matcher.prepare("common")))) == 5000


def test_finding_the_first_occurrence_reads_no_further_in_the_index():
    from pytest_chunkrecall.text.index import WordIndex

    index = WordIndex([" ".join(["common", "rare"] * 10_000)], scans_before_indexing=0)
    read = []

    class Counted(list):
        def __iter__(self):
            for value in super().__iter__():
                read.append(value)
                yield value

    index._postings["common"] = Counted(index._postings["common"])
    found = index.find("common")
    assert next(found) == (0, 0)
    assert len(read) == 1
    assert len(list(found)) == 9_999  # and the rest on demand, in text order
