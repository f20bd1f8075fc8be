"""Match space: folding keeps a map back to the document; the three match modes."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

from pytest_chunkrecall.text.folding import fold, fold_text
from pytest_chunkrecall.text.matcher import Matcher

# Whitespace runs, ASCII words and the characters that change length when folded:
# é (precomposed), e + combining acute (composes), ß and ﬁ (expand), Å as A + ring.
PIECES = st.sampled_from(
    [" ", "  ", "\t", "\n \n", "\u00a0", "a", "b", "E", "x", "e", ".", "-",
     "é", "e\u0301", "\u0301", "ß", "ﬁ", "A\u030a", "Ä", "ǅ", "İ", "Ω", "①"]
)  # fmt: skip
TEXTS = st.lists(PIECES, max_size=30).map("".join)
# Without characters that expand, every occurrence maps back exactly (pieces are
# whole graphemes, so a slice between pieces never parts a letter from its accent).
NO_EXPANSION = st.lists(
    st.sampled_from([" ", "  ", "\n\t", "a", "b", "E", "e", ".", "é", "e\u0301", "Ä", "A\u030a"]),
    min_size=1,
    max_size=30,
)


@given(TEXTS)
@example("cafe\u0301")
@example("A\u030a")
def test_fold_agrees_with_how_needles_are_folded(text):
    """A document folded with its offset map reads exactly as a needle folded alone."""
    assert fold(text).text.strip() == fold_text(text)


@given(TEXTS)
def test_fold_map_is_monotonic_and_in_range(text):
    folded = fold(text)
    starts = [folded.original_start(i) for i in range(len(folded.text))]
    ends = [folded.original_end(i) for i in range(len(folded.text) + 1)]
    assert starts == sorted(starts)
    assert ends == sorted(ends)
    assert all(0 <= s < len(text) for s in starts)
    assert ends[0] == 0
    assert ends[-1] == len(text) if folded.text else True


def occurrences(text: str, needle: str) -> list[int]:
    return [i for i in range(len(text) - len(needle) + 1) if text.startswith(needle, i)]


@given(TEXTS, st.data())
@example("ßs", None)
def test_a_needle_found_in_folded_text_maps_back_to_a_slice_that_holds_it(text, data):
    assume(text)
    if data is None:
        i, j = 1, 2
    else:
        i = data.draw(st.integers(0, len(text) - 1))
        j = data.draw(st.integers(i + 1, len(text)))
    needle = fold_text(text[i:j])
    assume(needle)
    folded = fold(text)
    for at in occurrences(folded.text, needle):
        start, end = folded.original_start(at), folded.original_end(at + len(needle))
        assert needle in fold_text(text[start:end])


@given(NO_EXPANSION, st.data())
def test_without_expansions_the_slice_folds_to_exactly_the_needle(pieces, data):
    text = "".join(pieces)
    i = data.draw(st.integers(0, len(pieces) - 1))
    j = data.draw(st.integers(i + 1, len(pieces)))
    needle = fold_text("".join(pieces[i:j]))
    assume(needle)
    folded = fold(text)
    found = occurrences(folded.text, needle)
    assert found, "a slice of the text is always found in the folded text"
    for at in found:
        start, end = folded.original_start(at), folded.original_end(at + len(needle))
        assert fold_text(text[start:end]) == needle


@pytest.mark.parametrize(
    "text, expected",
    [
        ("  The Refund\t\tWindow \n", "the refund window"),
        ("Straße", "strasse"),
        ("ﬁle", "file"),
        ("cafe\u0301", "café"),
        ("①", "1"),
    ],
)
def test_normalized_is_nfkc_casefold_with_whitespace_collapsed(text, expected):
    assert fold_text(text) == unicodedata.normalize("NFC", expected)


def test_exact_is_case_sensitive_substring():
    m = Matcher("exact")
    assert m.contains(m.prepare("The refund window is 30 days"), m.prepare(" 30 days "))
    assert not m.contains(m.prepare("The refund window is 30 days"), m.prepare("30 Days"))
    assert not m.contains(m.prepare("The refund window is 30  days"), m.prepare("30 days"))


def test_normalized_ignores_case_width_and_spacing():
    m = Matcher("normalized")
    assert m.contains(
        m.prepare("The REFUND\n window is \uff13\uff10 days"), m.prepare("refund window is 30 DAYS")
    )
    assert not m.contains(m.prepare("The refund window is 30 days"), m.prepare("31 days"))


def test_fuzzy_uses_the_threshold():
    text = Matcher("fuzzy").prepare("The refund window is 30 days from delivery")
    assert Matcher("fuzzy", 85).contains(text, "refund window is 30 dayz")
    assert not Matcher("fuzzy", 99).contains(text, "refund window is 30 dayz")
    assert Matcher("fuzzy", 0).contains(text, "anything")


def test_fuzzy_does_not_find_a_long_needle_inside_a_short_chunk():
    """partial_ratio aligns the shorter string inside the longer: a 3-char chunk is no holder."""
    m = Matcher("fuzzy", 90)
    assert not m.contains("30 ", "refund window is 30 days")


@pytest.mark.parametrize(
    "text",
    [
        "\u304b\u3099",
        "\u1100\u1161\u11a8",
        "\uff83\uff9e\uff70\uff80",
        "x \u304b\u3099 \u1100\u1161",
    ],
    ids=["decomposed kana", "conjoining hangul", "half-width katakana", "mixed"],
)
def test_fold_composes_kana_and_hangul_as_a_needle_would(text):
    assert fold(text).text == fold_text(text)


@given(TEXTS)
@example("a\n \nß b")
def test_folded_start_reads_the_offset_map_backwards(text):
    folded = fold(text)
    back = [folded.folded_start(p) for p in range(len(text) + 1)]
    assert back == sorted(back)
    assert all(0 <= f <= len(folded.text) for f in back)
    assert back[-1] == len(folded.text)
    for f in range(len(folded.text)):
        start = folded.original_start(f)
        assert folded.original_start(folded.folded_start(start)) == start
