"""Locating answers: occurrences map back to stored text, sentences always hold their answer."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pytest_chunkrecall.importing.anchor import (
    Source,
    closest_passage,
    nearest,
    occurrences,
    sentence,
)
from pytest_chunkrecall.text.folding import fold_text

TEXT = st.text(alphabet=st.sampled_from("ab AB.\n\t\u00e9e\u0301\ufb01!?"), max_size=60)


@given(TEXT, st.text(alphabet=st.sampled_from("ab AB.\u00e9"), min_size=1, max_size=4))
def test_each_occurrence_is_stored_text_that_folds_to_the_answer(text, answer):
    needle = fold_text(answer)
    source = Source("d", text)
    places = occurrences(source, answer)
    # a brute-force count of the folded answer in the folded document, overlaps included
    whole = source.folded.text
    assert len(places) == (
        sum(whole.startswith(needle, i) for i in range(len(whole))) if needle else 0
    )
    for place in places:
        # whole characters: a match that ends before a combining mark takes the mark along
        assert fold_text(place.text).startswith(needle)


@given(TEXT, st.data())
def test_the_sentence_always_holds_the_answer(text, data):
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    begin, finish = sentence(text, start, end)
    assert begin <= start and end <= finish


def test_sentences_end_at_sentence_ends_not_at_abbreviations():
    text = "Dr. Smith met the U.S. envoy in St. Louis. They agreed! Then what? Nothing."
    at = text.index("envoy")
    assert text[slice(*sentence(text, at, at + 5))] == "Dr. Smith met the U.S. envoy in St. Louis."
    at = text.index("agreed")
    assert text[slice(*sentence(text, at, at + 6))] == "They agreed!"


def test_markdown_blocks_are_sentences_without_their_markers():
    text = "# Shipping\n\n- Orders over 50 dollars ship free.\n- Members return for free\n  within 30 days.\n"
    at = text.index("30 days")
    assert text[slice(*sentence(text, at, at + 7))] == "Members return for free\n  within 30 days."
    assert text[slice(*sentence(text, 2, 5))] == "Shipping"


def test_the_nearest_occurrence_wins_and_verbatim_beats_folded():
    source = Source("d", "Fee: 5 dollars. A fee of 5 Dollars. The fee, 5 dollars.")
    assert nearest(source, "5 dollars", 27).start == source.text.index("5 dollars.", 20)
    assert nearest(source, "5 Dollars", 0).text == "5 Dollars"  # verbatim, though far
    assert nearest(source, "5  DOLLARS", 0).start == 5  # only folded: the nearest one
    assert nearest(source, "7 dollars", 0) is None


def test_the_closest_text_is_located_in_the_document_as_stored():
    source = Source("docs/a.md", "Intro.\n\nRefunds go back to the\noriginal   payment method.\n")
    best = closest_passage([source], "the original payment methods")
    assert best is not None and best.score > 90
    assert str(best.place) == "docs/a.md:3"
    assert fold_text(best.place.text).startswith("the original payment method")
