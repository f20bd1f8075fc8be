"""Numbers match whole: a pattern that starts or ends with a digit is never found next to
another digit (``30 days`` is not in ``130 days``), in every match mode, while letters keep
substring matching (``refund`` is in ``refunds``)."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from pytest_chunkrecall.text.index import WordIndex
from pytest_chunkrecall.text.matcher import Matcher

from .conftest import Shop

# Digits (one full-width, which NFKC folds to an ASCII digit), letters, spaces and marks.
TEXTS = st.text(alphabet="0123\uff13abA .-", max_size=30)
SHORT = st.text(alphabet="0123\uff13abA .-", min_size=1, max_size=5)


def whole_occurrences(text: str, pattern: str) -> list[int]:
    """The literal definition: every offset where ``pattern`` is, with no digit of the text
    beside a digit at either of its edges."""
    found = []
    for at in range(len(text) - len(pattern) + 1):
        if text[at : at + len(pattern)] != pattern:
            continue
        before = text[at - 1] if at > 0 else ""
        after = text[at + len(pattern)] if at + len(pattern) < len(text) else ""
        if pattern[0].isdecimal() and before.isdecimal():
            continue
        if pattern[-1].isdecimal() and after.isdecimal():
            continue
        found.append(at)
    return found


def pattern_of(data: st.DataObject, text: str) -> str:
    """A pattern that is often a piece of ``text`` (so that it occurs), else anything."""
    if text and data.draw(st.booleans()):
        start = data.draw(st.integers(0, len(text) - 1))
        end = data.draw(st.integers(start + 1, len(text)))
        return text[start:end]
    return data.draw(SHORT)


@pytest.mark.parametrize("mode", ["exact", "normalized"])
@given(text=TEXTS, data=st.data())
@example(text="130 days", data=None)
@example(text="March 20282", data=None)
def test_a_chunk_holds_a_pattern_as_the_literal_definition_says(mode, text, data):
    matcher = Matcher(mode)
    chunk = matcher.prepare(text)
    if data is None:
        pattern = matcher.prepare("30 days" if "days" in text else "March 2028")
    else:
        pattern = matcher.prepare(pattern_of(data, text))
    if not pattern:
        return
    assert matcher.contains(chunk, pattern) == bool(whole_occurrences(chunk, pattern))


@pytest.mark.parametrize("scans_before_indexing", [0, 128], ids=["indexed", "scanned"])
@given(texts=st.lists(TEXTS, min_size=1, max_size=4), data=st.data())
def test_the_corpus_index_finds_exactly_the_whole_occurrences(scans_before_indexing, texts, data):
    index = WordIndex(texts, scans_before_indexing=scans_before_indexing)
    pattern = pattern_of(data, data.draw(st.sampled_from(texts)))
    expected = [
        (number, at) for number, text in enumerate(texts) for at in whole_occurrences(text, pattern)
    ]
    assert list(index.find(pattern)) == expected


def digit_runs(text: str) -> set[str]:
    return set(re.findall(r"\d+", text))


@given(text=st.text(alphabet="0123ab .", max_size=30), data=st.data())
def test_fuzzy_never_matches_a_number_inside_a_longer_one(text, data):
    """Whatever a fuzzy match forgives, each number of the needle is a whole number of the
    chunk (the alphabet has no decimal marks, so a number is a run of digits)."""
    matcher = Matcher("fuzzy", 80)
    chunk = matcher.prepare(text)
    needle = matcher.prepare(data.draw(st.text(alphabet="0123ab .", min_size=1, max_size=12)))
    if needle and matcher.contains(chunk, needle):
        assert digit_runs(needle) <= digit_runs(chunk)


@pytest.mark.parametrize("mode", ["exact", "normalized", "fuzzy"])
def test_every_mode_holds_numbers_whole_and_letters_as_substrings(mode):
    matcher = Matcher(mode)

    def holds(text: str, needle: str) -> bool:
        return matcher.contains(matcher.prepare(text), matcher.prepare(needle))

    assert not holds("Refunds within 130 days.", "30 days")
    assert not holds("Launch in March 20282.", "March 2028")
    assert not holds("Refund 305", "Refund 30")
    assert holds("Refunds within 30 days.", "30 days")
    assert holds("Refunds within 130 days, or 30 days for sale items.", "30 days")
    assert holds("Read the refunds page", "refund")
    assert holds("Plan B30 days", "30 days")  # a letter before the digit: another word, not number


NUMBERS = """\
# Refunds

Refunds are accepted within 130 days of delivery.

The launch is planned for March 20282, well ahead.
"""


def test_a_number_inside_a_longer_one_is_absent_not_a_hit(shop: Shop) -> None:
    """The retrieved chunk says 130 days: a needle of 30 days is gold data the corpus does
    not have, in every mode, and a {from, to} span ends only at a whole number."""
    shop.write("docs/numbers.md", NUMBERS)
    shop.gold(
        """
        corpus: ../docs/numbers.md
        chunker_args: {size: 400, overlap: 0}
        cases:
          - id: window
            question: How long is the refund window?
            needle: 30 days
          - id: window-fuzzy
            question: How long is the refund window?
            needle: 30 days
            match: fuzzy
          - id: launch
            question: When is the launch?
            needle: March 2028
            match: exact
          - id: launch-range
            question: When is the launch?
            needle: launch
            span: {from: launch, to: March 2028}
          - id: plural
            question: Are refunds accepted?
            needle: refund
        """
    )
    result, report = shop.report()
    verdicts = {case["id"]: case["verdict"] for case in report["cases"]}
    assert verdicts == {
        "window": "absent",
        "window-fuzzy": "absent",
        "launch": "absent",
        "launch-range": "absent",
        "plural": "hit",
    }
    result.stdout.fnmatch_lines(["*window*absent*"])
