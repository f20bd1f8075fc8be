"""Batches, calls in flight and xdist workers: fewer, overlapping retriever calls, the same verdicts."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from typing import Any

import pytest

from .conftest import QUIET, Shop, assert_no_internals

# A retriever that logs every call it gets (process, kind, questions) to $CALLS,
# offering search_batch unless told not to; "boom" in a question makes it raise.
COUNTING = """
import json, os, threading, time

LOCK = threading.Lock()
IN_FLIGHT = [0]


def log(kind, questions):
    with LOCK, open(os.environ["CALLS"], "a", encoding="utf-8") as out:
        IN_FLIGHT[0] += 1
        out.write(json.dumps({"pid": os.getpid(), "kind": kind, "questions": questions,
                              "in_flight": IN_FLIGHT[0]}) + "\\n")


def done():
    with LOCK:
        IN_FLIGHT[0] -= 1


class Counting:
    def __init__(self, chunks, sleep, wrong):
        self.chunks, self.sleep, self.wrong = chunks, sleep, wrong

    def rank(self, question, k):
        if "boom" in question:
            raise ValueError(f"cannot search {question!r}")
        words = question.lower().split()
        score = [sum(w in c.text.lower() for w in words) for c in self.chunks]
        return sorted(range(len(self.chunks)), key=lambda i: (-score[i], i))[:k]

    def search(self, question, k):
        log("search", [question])
        try:
            time.sleep(self.sleep)
            return self.rank(question, k)
        finally:
            done()


class Batching(Counting):
    def search_batch(self, questions, k):
        log("search_batch", questions)
        try:
            time.sleep(self.sleep)
            found = [self.rank(q, k) for q in questions]
            return found[:-1] if self.wrong else found
        finally:
            done()


def build(chunks, batch=True, sleep=0.0, wrong=False):
    return (Batching if batch else Counting)(chunks, sleep, wrong)
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
    args = ("-o", "chunkrecall_retriever_args={batch: false, sleep: 0.05}")
    serial, plain = run(counted, *args)
    serial.assert_outcomes(passed=20)
    calls(counted)
    started = time.perf_counter()
    concurrent, report = run(counted, *args, "-o", "chunkrecall_concurrency=5")
    seconds = time.perf_counter() - started
    made = calls(counted)
    concurrent.assert_outcomes(passed=20)
    assert set(Counter(q for c in made for q in c["questions"]).values()) == {1}
    assert len(made) == 20
    assert max(c["in_flight"] for c in made) > 1
    assert seconds < 20 * 0.05 + 1.5  # not more than the serial waiting and start-up
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
        [f"*ini option chunkrecall_{option} must be a whole number from 1 *{value!r}*"]
    )
    assert "passed" not in result.stdout.str()


def test_two_workers_never_ask_the_same_question(counted):
    pytest.importorskip("xdist")
    asked = project(counted, copies=4)
    serial, plain = run(counted, "-o", "chunkrecall_batch_size=4", subprocess=True)
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


def test_ctrl_c_stops_a_run_with_calls_in_flight_promptly(counted):
    project(counted, copies=4)
    counted.ini(
        "chunkrecall_retriever = counting:build\nchunkrecall_concurrency = 4\nchunkrecall_retriever_args = {batch: false, sleep: 0.5}\n"
    )
    environment = {**os.environ, "PYTEST_ADDOPTS": "", "PYTHONPATH": os.pathsep.join(sys.path)}
    process = subprocess.Popen(
        [sys.executable, "-m", "pytest", *QUIET, "-p", "no:cacheprovider", "gold"],
        cwd=counted.path, env=environment, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )  # fmt: skip
    log = counted.path / "calls.log"
    deadline = time.monotonic() + 30
    while not (log.exists() and log.read_text().count("\n") >= 4) and time.monotonic() < deadline:
        time.sleep(0.05)
    interrupted = time.monotonic()
    process.send_signal(signal.SIGINT)
    output, _ = process.communicate(timeout=30)
    stopped = time.monotonic() - interrupted
    assert process.returncode == pytest.ExitCode.INTERRUPTED, output.decode()
    assert b"KeyboardInterrupt" in output
    assert stopped < 3, f"took {stopped:.1f} s to stop"
    # 40 questions at 0.5 s each, 4 at a time, would take 5 s more: most were never sent.
    assert log.read_text().count("\n") < 20


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
