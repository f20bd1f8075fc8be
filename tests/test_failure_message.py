"""A miss's failure message: the same text wherever pytest shows it, made when it is shown.

pytest keeps every report until the run ends; a run of many misses would keep every
message's text. The report keeps what the message is made from instead, and each reader
(the FAILURES section, ``--tb=line``, the short summary, JUnit XML, xdist's transport)
still gets the text it got when the message was made at once.
"""

from __future__ import annotations

import importlib.util
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from typing import Any

import pytest

from .conftest import QUIET, Shop

WINDOWS = "corpus: ../docs/policies.md\nchunker_args: {size: 80, overlap: 0}\nk: 2\n"
# The holding chunk (3) ranked 5th, past the top 2: a ranked_out miss.
FEE = (
    "retriever: rag:keywords\n"
    "retriever_args: {rankings: {fees: [0, 1, 2, 4, 3]}}\n"
    "cases:\n  - id: fee\n    question: fees\n    needle: 15 percent\n"
)
HEADLINE = (
    "chunkrecall: ranked_out — a chunk holds it whole, but the retriever did not rank that "
    "chunk in the top 2"
)


@pytest.fixture
def missed(shop: Shop) -> Shop:
    shop.gold(WINDOWS + FEE)
    return shop


def failures_section(result: pytest.RunResult) -> list[str]:
    """The lines of the FAILURES section after the failure's heading, up to the next section."""
    lines = result.outlines
    start = next(number for number, line in enumerate(lines) if "FAILURES" in line) + 2
    end = next(number for number in range(start, len(lines)) if lines[number].startswith("==="))
    return lines[start:end]


def test_every_reader_of_the_failure_gets_the_same_text(missed: Shop) -> None:
    shown = missed.run()
    body = failures_section(shown)
    assert body[0] == HEADLINE
    assert "  question: fees" in body
    assert "  the chunk that holds it ranks 5th (k = 2)" in body

    line = missed.run("--tb=line")
    assert f"{missed.path / 'gold' / 'policies.yaml'}:7: {HEADLINE}" in line.outlines

    summary = missed.run("--tb=no", "-rA", "-vv")
    assert f"FAILED gold/policies.yaml::fee - {HEADLINE}" in summary.outlines

    missed.run("--tb=no", "--junitxml=junit.xml")
    failure = ET.parse(missed.path / "junit.xml").find(".//testcase/failure")
    assert failure is not None
    assert failure.get("message") == HEADLINE
    assert (failure.text or "").splitlines() == body


@pytest.mark.skipif(importlib.util.find_spec("xdist") is None, reason="needs pytest-xdist")
def test_the_failure_crosses_from_an_xdist_worker_as_it_reads_in_one_process(
    missed: Shop,
) -> None:
    alone = failures_section(missed.run())
    distributed = missed.pytester.runpytest_subprocess(*QUIET, "-n", "2", "-rf", "-vv")
    # xdist adds the line of the worker that ran the case ("[gw0] linux -- Python ...")
    assert [line for line in failures_section(distributed) if not line.startswith("[gw")] == alone
    assert f"FAILED gold/policies.yaml::fee - {HEADLINE}" in distributed.outlines


def strings_held(value: Any, seen: set[int] | None = None) -> Iterator[str]:
    """Every string ``value`` holds: in its instance attributes and slots, its items, and
    the variables a function closes over (not a function's module globals, nor what a
    property would make)."""
    seen = set() if seen is None else seen
    if id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from strings_held(key, seen)
            yield from strings_held(item, seen)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            yield from strings_held(item, seen)
    elif callable(value) and hasattr(value, "__closure__"):
        for cell in value.__closure__ or ():
            yield from strings_held(cell.cell_contents, seen)
    elif not isinstance(value, type):
        if hasattr(value, "__dict__"):
            yield from strings_held(vars(value), seen)
        for kind in type(value).__mro__:
            for name in getattr(kind, "__slots__", ()):
                if name != "__dict__" and hasattr(value, name):
                    yield from strings_held(getattr(value, name), seen)


def test_the_report_of_a_miss_holds_what_its_message_is_made_from_not_its_text(
    missed: Shop,
) -> None:
    recorded = missed.pytester.inline_run(*QUIET)
    (report,) = recorded.getfailures()
    assert report.longreprtext.splitlines()[:2] == [HEADLINE, "  question: fees"]
    assert report.longrepr.reprcrash.message == HEADLINE
    held = list(strings_held(report.longrepr))
    assert not [text for text in held if "question: fees" in text]
    assert "fees" in held  # the question, as the case's result holds it
