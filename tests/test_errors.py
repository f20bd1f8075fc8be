"""Broken configuration and misbehaving user code: a clear message, never our traceback."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from .conftest import assert_no_internals, dedent, lines

CASES = dedent(
    """
    cases:
      - id: fee
        question: restocking fee
        needle: 15 percent
      - id: refund
        question: refund window
        needle: 30 days
      - id: customs
        question: customs clearance
        needle: 9 dollars
    """
)

BROKEN = '''
"""User code that goes wrong in every way the contract names."""


def raises(text):
    return helper(text)


def helper(text):
    raise ValueError("tokenizer model not found")


def returns_none(text):
    return None


def returns_numbers(text):
    return [1, 2, 3]


def returns_a_string(text):
    return text


def retriever_raises(chunks):
    def search(question, k):
        raise ConnectionError("vector store unreachable")

    return search


def factory_raises(chunks):
    raise ImportError("faiss is not installed")


def factory_returns_none(chunks):
    return None


def fewer_than_k(chunks):
    return lambda question, k: [i for i, c in enumerate(chunks) if "15 percent" in c.text]


def unknown_shape(chunks):
    return lambda question, k: [3.5, 2.5]


def out_of_range(chunks):
    return lambda question, k: [len(chunks) + 10]


def negative_index(chunks):
    return lambda question, k: [-1]


def not_a_list(chunks):
    return lambda question, k: 42


import_time = None
'''


@pytest.fixture
def broken(shop):
    shop.write("broken.py", BROKEN)
    shop.write("explodes.py", "raise RuntimeError('module-level failure in explodes')\n")

    def gold(**settings):
        head = {"corpus": "../docs/policies.md", "k": 2, **settings}
        shop.gold("".join(f"{key}: {value}\n" for key, value in head.items()) + CASES)
        result = shop.run("--chunkrecall-report", "r.json")
        assert_no_internals(result)
        return result

    return gold


@pytest.mark.parametrize(
    "settings, message",
    [
        (
            {"corpus": "../documents/*.md"},
            "chunkrecall: gold/policies.yaml:1: corpus pattern '../documents/*.md' matches no file:"
            " check the path, which is relative to */gold",
        ),
        (
            {"corpus": "[../docs/policies.md, ../docs]"},
            "chunkrecall: gold/policies.yaml:1: corpus pattern '../docs' matches no file:"
            " it matches only folders*",
        ),
        (
            {"chunker": "shop.ingest:chunk"},
            "chunkrecall: gold/policies.yaml:3: chunker 'shop.ingest:chunk': no module named 'shop'*",
        ),
        (
            {"chunker": "broken:chunk"},
            "chunkrecall: gold/policies.yaml:3: chunker 'broken:chunk': 'broken' has no attribute"
            " 'chunk' (it has: *raises*",
        ),
        (
            {"retriever": "explodes:search"},
            "chunkrecall: gold/policies.yaml:3: retriever 'explodes:search': importing 'explodes'"
            " failed:",
        ),
    ],
    ids=["corpus glob", "corpus folder", "no module", "no attribute", "import fails"],
)
def test_configuration_errors_are_collection_errors(broken, settings, message):
    result = broken(**settings)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(lines(message))


def test_an_import_error_shows_the_users_own_traceback(broken, shop):
    result = broken(retriever="explodes:search")
    result.stdout.fnmatch_lines(
        lines("*explodes.py*line 1*", "RuntimeError: module-level failure in explodes")
    )


def test_ini_entry_points_are_named_by_their_option(shop):
    shop.ini("chunkrecall_retriever = rag:nothing_here")
    shop.gold("corpus: ../docs/policies.md\n" + CASES)
    result = shop.run()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["chunkrecall: ini option chunkrecall_retriever: retriever 'rag:nothing_here': *"]
    )
    assert_no_internals(result)


def test_a_corpus_file_that_cannot_be_read(broken, shop, monkeypatch):
    path = shop.path / "docs/policies.md"
    if os.geteuid() == 0:  # root reads files whatever their mode: refuse it all the same
        real_read = Path.read_text

        def read_text(self, *args, **kwargs):
            if self == path:
                raise PermissionError(13, "Permission denied", str(self))
            return real_read(self, *args, **kwargs)

        monkeypatch.setattr(Path, "read_text", read_text)
    path.chmod(0)
    try:
        result = broken()
    finally:
        path.chmod(0o644)
    result.assert_outcomes(failed=3)
    result.stdout.fnmatch_lines(["*cannot read corpus file docs/policies.md: Permission denied*"])


def test_a_corpus_file_that_is_not_utf8(broken, shop):
    shop.write("docs/policies.md", b"Caf\xe9 policies: 30 days")
    result = broken()
    result.assert_outcomes(failed=3)
    result.stdout.fnmatch_lines(
        ["chunkrecall: gold/policies.yaml:1: corpus file docs/policies.md is not UTF-8 text"
         " (byte 0xe9 at offset 3)*"]
    )  # fmt: skip


BUILD_ERRORS = {
    "chunker raises": (
        {"chunker": "broken:raises"},
        [
            "chunkrecall: gold/policies.yaml: chunker broken:raises raised on docs/policies.md:"
            " ValueError: tokenizer model not found:",
            '*broken.py", line *, in raises',
            '*broken.py", line *, in helper',
            "ValueError: tokenizer model not found",
        ],
    ),
    "chunker returns None": (
        {"chunker": "broken:returns_none"},
        ["chunkrecall: gold/policies.yaml: chunker broken:returns_none returned None for"
         " docs/policies.md; it must return a list of chunks*"],
    ),
    "chunker returns numbers": (
        {"chunker": "broken:returns_numbers"},
        ["chunkrecall: gold/policies.yaml: chunker broken:returns_numbers returned an int as"
         " chunk 0 of docs/policies.md; each chunk must be str, *"],
    ),
    "chunker returns one string": (
        {"chunker": "broken:returns_a_string"},
        ["chunkrecall: gold/policies.yaml: chunker broken:returns_a_string returned a str*"],
    ),
    "retriever factory raises": (
        {"retriever": "broken:factory_raises", "chunker_args": "{size: 80, overlap: 0}"},
        ["chunkrecall: gold/policies.yaml: retriever broken:factory_raises failed while building"
         " its index over 7 chunks: ImportError: faiss is not installed:"],
    ),
    "retriever factory returns None": (
        {"retriever": "broken:factory_returns_none", "chunker_args": "{size: 80, overlap: 0}"},
        ["chunkrecall: gold/policies.yaml: retriever broken:factory_returns_none returned None;*"],
    ),
}  # fmt: skip


@pytest.mark.parametrize("settings, message", BUILD_ERRORS.values(), ids=list(BUILD_ERRORS))
def test_a_broken_suite_is_reported_once_in_full(broken, settings, message):
    result = broken(**settings)
    result.assert_outcomes(failed=3)
    result.stdout.fnmatch_lines(lines(*message))


def test_a_retriever_that_returns_fewer_than_k_is_fine(broken, shop):
    result = broken(chunker_args="{size: 80, overlap: 0}", retriever="broken:fewer_than_k", k=3)
    result.assert_outcomes(passed=1, failed=2)
    report = json.loads((shop.path / "r.json").read_text())
    cases = {case["id"]: case for case in report["cases"]}
    assert {case: cases[case]["verdict"] for case in cases} == {
        "fee": "hit",
        "refund": "ranked_out",
        "customs": "ranked_out",
    }
    assert {tuple(case["retrieved_ids"]) for case in cases.values()} == {("docs/policies.md#3",)}
    assert report["unevaluated"] == []


def test_nothing_is_written_when_collection_fails(broken, shop):
    broken(corpus="../nowhere/*.md")
    assert not (shop.path / "r.json").exists()


def test_a_retriever_that_fails_every_question_shows_its_traceback_once(broken):
    """Each case names its own question; the identical traceback is not repeated."""
    result = broken(chunker_args="{size: 80, overlap: 0}", retriever="broken:retriever_raises")
    result.assert_outcomes(failed=3)
    output = result.stdout.str()
    assert output.count('", line ') == 1, output
    for question in ("restocking fee", "refund window", "customs clearance"):
        result.stdout.fnmatch_lines(
            [f"chunkrecall: retriever broken:retriever_raises raised ConnectionError: vector store"
             f" unreachable for the question '{question}':*"]
        )  # fmt: skip
    assert "the same traceback as for gold/policies.yaml::fee" in output


@pytest.mark.parametrize(
    "settings",
    [
        {"chunker": "broken:raises"},
        {"chunker_args": "{size: 80, overlap: 0}", "retriever": "broken:factory_raises"},
        {"chunker_args": "{size: 80, overlap: 0}", "retriever": "broken:retriever_raises"},
        {"chunker_args": "{size: 80, overlap: 0}", "retriever": "broken:out_of_range"},
    ],
    ids=["chunker raises", "factory raises", "retriever raises", "index out of range"],
)
def test_cases_that_could_not_be_evaluated_are_named_and_not_counted(broken, shop, settings):
    """The report and the summary say which cases have no verdict, rather than hide them."""
    broken(**settings)
    report = json.loads((shop.path / "r.json").read_text())
    assert report["totals"]["cases"] == 0
    assert report["unevaluated"] == [case["nodeid"] for case in report["cases"]]
    assert {case["outcome"] for case in report["cases"]} == {"failed"}


def test_the_gold_file_lines_stay_when_the_retriever_fails_for_a_question(shop):
    shop.write(
        "flaky.py",
        dedent(
            """
            from pytest_chunkrecall.retrievers import bm25

            def build(chunks):
                search = bm25(chunks)
                def ask(question, k):
                    if "refund" in question:
                        raise RuntimeError("index offline")
                    return search(question, k)
                return ask
            """
        ),
    )
    shop.ini("chunkrecall_corpus = docs/policies.md\nchunkrecall_retriever = flaky:build\n")
    shop.gold(
        """
        cases:
          - question: refund window
            needle: 30 days
          - question: restocking fee
            needle: 15 percent
        """
    )
    result, report = shop.report("-p", "no:randomly")
    result.assert_outcomes(passed=1, failed=1)
    assert (
        "chunkrecall: retriever flaky:build raised RuntimeError: index offline"
        " for the question 'refund window':"
    ) in result.outlines
    assert report["unevaluated"] == ["gold/policies.yaml::refund-window"]
    (gold,) = report["gold_files"]
    assert (gold["path"], gold["retriever"], gold["k"]) == ("gold/policies.yaml", "flaky:build", 5)
    assert (gold["totals"]["cases"], gold["totals"]["hits"]) == (1, 1)


def test_chunker_args_the_chunker_does_not_take_stop_collection_once(shop):
    shop.ini(
        """
        chunkrecall_corpus = docs/policies.md
        chunkrecall_chunker_args = {size: 80, overlp: 10}
        """
    )
    shop.gold(CASES)
    result = shop.run()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "chunkrecall: ini option chunkrecall_chunker_args: chunker pytest_chunkrecall.chunkers:fixed_size"
            " with chunker_args {'size': 80, 'overlp': 10}: it takes no argument 'overlp'"
            " (it takes size, overlap); did you mean 'overlap'?"
        ]
    )
    assert_no_internals(result)


@pytest.mark.parametrize(
    ("number", "noun", "plural", "expected"),
    [
        (0, "case", None, "0 cases"),
        (1, "case", None, "1 case"),
        (2, "gold file", None, "2 gold files"),
        (1, "known miss", "known misses", "1 known miss"),
        (3, "known miss", "known misses", "3 known misses"),
        (12_500, "case", None, "12,500 cases"),
    ],
)
def test_a_count_and_its_noun_agree(number, noun, plural, expected):
    from pytest_chunkrecall.errors import counted

    assert counted(number, noun, plural) == expected
