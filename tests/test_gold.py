"""Gold files: what the schema accepts, and a clear file:line message for what it refuses."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from pytest_chunkrecall.gold import CASE_KEYS, FILE_KEYS, GoldError, SpanRange, parse

from .conftest import assert_no_internals, dedent


def read(text: str):
    return parse(dedent(text), path=Path("gold/policies.yaml"), name="gold/policies.yaml")


def test_every_key_of_the_contract_is_read():
    gold = read(
        """
        corpus: [../docs/*.md, ../faq/*.txt]
        chunker: shop.ingest:chunk
        chunker_args: {size: 80, overlap: 24}
        retriever: shop.search:build
        retriever_args: {model: tiny}
        k: 3
        match: exact
        fuzzy_threshold: 85
        cases:
          - id: refund-window
            question: What is the refund window?
            needle: 30 days
            span: The refund window is 30 days
          - id: customs
            question: How much is customs clearance?
            needles: [9 dollars, per kilogram]
            span: {from: Customs clearance, to: 9 dollars}
            k: 1
            match: fuzzy
            fuzzy_threshold: 70.5
            xfail: anchor and value sit farther apart than one chunk
            marks: [slow, policies]
          - question: Is there a restocking fee?
            needle: 1.50
            skip: true
        """
    )
    s = gold.settings
    assert s.corpus == ("../docs/*.md", "../faq/*.txt")
    assert (s.chunker, s.retriever) == ("shop.ingest:chunk", "shop.search:build")
    assert s.chunker_args == {"size": 80, "overlap": 24}
    assert s.retriever_args == {"model": "tiny"}
    assert (s.k, s.match, s.fuzzy_threshold) == (3, "exact", 85.0)
    assert s.corpus_base == Path("gold")
    first, second, third = gold.cases
    assert first.needles == ("30 days",)
    assert first.span == "The refund window is 30 days"
    assert first.line == 10
    assert second.needles == ("9 dollars", "per kilogram")
    assert second.span == SpanRange("Customs clearance", "9 dollars")
    assert (second.k, second.match, second.fuzzy_threshold) == (1, "fuzzy", 70.5)
    assert second.xfail == "anchor and value sit farther apart than one chunk"
    assert second.marks == ("slow", "policies")
    assert third.id == "is-there-a-restocking-fee"
    assert third.needles == ("1.50",)  # as written, not the float 1.5
    assert third.skip == ""
    assert first.k is first.match is first.fuzzy_threshold is None


def test_settings_are_optional():
    gold = read(
        """
        cases:
          - question: q
            needle: n
        """
    )
    assert gold.settings.corpus is None
    assert gold.settings.k is None


# (gold file text, line the message must name, what it must say)
BAD_GOLD = {
    "invalid YAML": (
        """
        corpus: ../docs/*.md
        cases:
          - question: What is the refund window?
             needle: [30 days
        """,
        4,
        "invalid YAML",
    ),
    "a list, not a mapping": (
        """
        - question: What is the refund window?
          needle: 30 days
        """,
        1,
        "must be a mapping",
    ),
    "a plain scalar document": ("just some words\n", 1, "must be a mapping"),
    "an empty file": ("\n", 1, "empty"),
    "misspelt top-level key": (
        """
        corpus: ../docs/*.md
        chunkr: shop:chunk
        cases:
          - question: q
            needle: n
        """,
        2,
        "unknown key 'chunkr'*did you mean 'chunker'?",
    ),
    "misspelt case key": (
        """
        corpus: ../docs/*.md
        cases:
          - question: q
            neddle: n
        """,
        4,
        "unknown key 'neddle'*did you mean 'needle'?",
    ),
    "unknown key without a near miss": (
        """
        corpus: ../docs/*.md
        cases:
          - question: q
            needle: n
            priority: high
        """,
        5,
        "unknown key 'priority'*",
    ),
    "a case key at the top": (
        """
        corpus: ../docs/*.md
        needle: n
        cases:
          - question: q
            needle: n
        """,
        2,
        "*'needle' belongs in a case*",
    ),
    "k: three": (
        """
        corpus: ../docs/*.md
        k: three
        cases:
          - question: q
            needle: n
        """,
        2,
        "'k' must be a whole number*'three'*",
    ),
    "k: 0": (
        """
        corpus: ../docs/*.md
        cases:
          - question: q
            needle: n
            k: 0
        """,
        5,
        "'k' must be at least 1*",
    ),
    "fuzzy_threshold: 140": (
        """
        corpus: ../docs/*.md
        fuzzy_threshold: 140
        cases:
          - question: q
            needle: n
        """,
        2,
        "'fuzzy_threshold' must be from 0 to 100*140*",
    ),
    "match: fuzzzy": (
        """
        corpus: ../docs/*.md
        cases:
          - question: q
            needle: n
            match: fuzzzy
        """,
        5,
        "'match' must be one of exact, normalized, fuzzy*did you mean 'fuzzy'?",
    ),
    "missing question": (
        """
        corpus: ../docs/*.md
        cases:
          - id: refund
            needle: 30 days
        """,
        3,
        "*no 'question:'*",
    ),
    "missing needle": (
        """
        corpus: ../docs/*.md
        cases:
          - question: q
            span: the refund window is 30 days
        """,
        3,
        "*no 'needle:'*",
    ),
    "both needle and needles": (
        """
        corpus: ../docs/*.md
        cases:
          - question: q
            needle: a
            needles: [a, b]
        """,
        5,
        "*either 'needle:' or 'needles:', not both*",
    ),
    "empty needle": (
        """
        corpus: ../docs/*.md
        cases:
          - question: q
            needle: ""
        """,
        4,
        "'needle' is empty",
    ),
    "null needle": (
        """
        corpus: ../docs/*.md
        cases:
          - question: q
            needle:
        """,
        4,
        "'needle' must be text*",
    ),
    "empty needle in a list": (
        """
        corpus: ../docs/*.md
        cases:
          - question: q
            needles: [a, "  "]
        """,
        4,
        "item 2 of 'needles' is empty*",
    ),
    "empty needles list": (
        """
        corpus: ../docs/*.md
        cases:
          - question: q
            needles: []
        """,
        4,
        "'needles' must be a non-empty list*",
    ),
    "duplicate ids": (
        """
        corpus: ../docs/*.md
        cases:
          - id: refund
            question: q1
            needle: a
          - id: refund
            question: q2
            needle: b
        """,
        6,
        "duplicate case id 'refund' (first used on line 3)*",
    ),
    "duplicate default ids": (
        """
        corpus: ../docs/*.md
        cases:
          - question: What is the refund window?
            needle: a
          - question: what is the refund window
            needle: b
        """,
        5,
        "duplicate case id 'what-is-the-refund-window'*",
    ),
    "empty cases": (
        """
        corpus: ../docs/*.md
        cases: []
        """,
        2,
        "'cases' is empty*",
    ),
    "no cases": ("corpus: ../docs/*.md\n", 1, "no 'cases:'*"),
    "comma inside a flow-style span range": (
        """
        corpus: ../docs/*.md
        cases:
          - question: q
            needle: 30 days
            span: {from: Refunds, returns and exchanges, to: 30 days}
        """,
        5,
        "a comma inside a flow-style span range ends its value: 'returns and exchanges' reads "
        'as a key of its own. Quote a value that holds a comma, e.g. {from: "Refunds, returns '
        'and exchanges", ...}*',
    ),
    "span range without to": (
        """
        corpus: ../docs/*.md
        cases:
          - question: q
            needle: n
            span: {from: refund}
        """,
        5,
        "*needs both 'from' and 'to' (missing: to)*",
    ),
    "a key given twice": (
        """
        corpus: ../docs/*.md
        cases:
          - question: q
            needle: a
            needle: b
        """,
        5,
        "key 'needle' is given twice*",
    ),
    "chunker not module:attr": (
        """
        corpus: ../docs/*.md
        chunker: shop.ingest.chunk
        cases:
          - question: q
            needle: n
        """,
        2,
        "'chunker' must be 'module:attr'*",
    ),
    "chunker_args not a mapping": (
        """
        corpus: ../docs/*.md
        chunker_args: [80, 24]
        cases:
          - question: q
            needle: n
        """,
        2,
        "'chunker_args' must be a mapping*",
    ),
    "an unknown YAML tag": (
        """
        corpus: ../docs/*.md
        k: !chunks 3
        cases:
          - question: q
            needle: n
        """,
        2,
        "*'k'*",
    ),
    "an explicit tag that does not fit": (
        """
        corpus: ../docs/*.md
        cases:
          - question: q
            needle: n
            fuzzy_threshold: !!float ninety
        """,
        5,
        "*'fuzzy_threshold'*",
    ),
    "marks not names": (
        """
        corpus: ../docs/*.md
        cases:
          - question: q
            needle: n
            marks: [slow down]
        """,
        5,
        "'marks' must be a list of mark names*",
    ),
}


@pytest.mark.parametrize("text, line, message", BAD_GOLD.values(), ids=BAD_GOLD.keys())
def test_a_bad_gold_file_is_a_collection_error_naming_file_line_and_key(shop, text, line, message):
    shop.gold(text)
    # named on the command line: a file in gold/ that is no mapping of gold keys is left
    # alone by the default discovery, but one that is named is always collected
    result = shop.run("gold/policies.yaml", "--chunkrecall-report", "report.json")
    result.assert_outcomes(errors=1)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines([f"chunkrecall: gold/policies.yaml:{line}: *{message}*"])
    assert_no_internals(result)
    assert not (shop.path / "report.json").exists()


def test_one_bad_gold_file_does_not_hide_the_errors_of_another(shop):
    shop.gold(BAD_GOLD["k: three"][0], "gold/a.yaml")
    shop.gold(BAD_GOLD["match: fuzzzy"][0], "gold/b.yaml")
    result = shop.run()
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines_random(
        ["chunkrecall: gold/a.yaml:2: 'k' must*", "chunkrecall: gold/b.yaml:5: 'match' must*"]
    )


def test_a_gold_file_that_is_not_utf8_is_named(shop):
    shop.write(
        "gold/policies.yaml", "cases:\n  - question: caf\xe9\n    needle: n\n".encode("latin-1")
    )
    result = shop.run()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["chunkrecall: gold/policies.yaml:2: not UTF-8 text*save the file as UTF-8*"]
    )
    assert_no_internals(result)


@pytest.mark.parametrize(
    "text",
    ["{cases: [{question: q, needle: n, span: {from: a, to: b, via: c}}]}"],
)
def test_unknown_keys_in_a_span_range_are_refused(text):
    with pytest.raises(GoldError, match=r"unknown key 'via' in a span range"):
        parse(text, path=Path("g.yaml"), name="g.yaml")


SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 200),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["", " ", "30 days", "exact", "fuzzy", "a:b", "../docs/*.md", "slow"]),
    st.text(max_size=8),
)
KEYS = st.sampled_from([*FILE_KEYS, *CASE_KEYS, "from", "to", "neddle", "x"])
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(KEYS | st.integers(0, 3), inner, max_size=4)
    ),
    max_leaves=12,
)
CASE = st.dictionaries(KEYS, VALUES, max_size=6)
DOCUMENT = st.one_of(
    VALUES,
    st.fixed_dictionaries({"cases": st.lists(CASE, max_size=3)}, optional={"k": VALUES}),
    st.dictionaries(KEYS, VALUES, max_size=5).map(lambda d: {**d, "cases": [dict(d)]}),
)


@given(DOCUMENT)
def test_any_yaml_document_parses_or_is_a_gold_error(document):
    text = yaml.safe_dump(document, allow_unicode=True)
    try:
        gold = parse(text, path=Path("gold/g.yaml"), name="gold/g.yaml")
    except GoldError as exc:
        assert str(exc).startswith("gold/g.yaml:")
    else:
        assert gold.cases
        assert len({case.id for case in gold.cases}) == len(gold.cases)
        assert all(case.needles and all(case.needles) for case in gold.cases)


@given(st.text(max_size=80))
def test_any_text_parses_or_is_a_gold_error(text):
    with contextlib.suppress(GoldError):
        parse(text, path=Path("g.yaml"), name="g.yaml")
