from __future__ import annotations

import pytest
from notes import Note

from shopkb.__main__ import main
from shopkb.ingest import Passage
from shopkb.search import build, stem, terms


@pytest.mark.parametrize(
    "forms",
    [
        ("ship", "ships", "shipped", "shipping"),
        ("charge", "charges", "charged"),
        ("refund", "refunds", "refunded"),
        ("policy", "policies"),
    ],
)
def test_stem_joins_word_forms(forms: tuple[str, ...]) -> None:
    assert len({stem(word) for word in forms}) == 1


def test_terms_drop_stopwords_and_keep_numbers() -> None:
    assert terms("What is the fee for 2 rugs?") == ["fee", "2", "rug"]


def test_search_ranks_by_shared_rare_words() -> None:
    notes = [
        Note("Shipping is free over $75."),
        Note("Express shipping takes 2 business days."),
        Note("Gift cards never expire."),
    ]
    index = build(notes)
    assert index.search("how long does express shipping take", 3) == [notes[1], notes[0]]
    assert index.search("do gift cards expire", 1) == [notes[2]]
    assert index.search("zebra", 3) == []


def test_equal_scores_go_to_the_earlier_passage() -> None:
    notes = [Note("linen care"), Note("linen care")]
    assert build(notes).search("linen", 2) == notes


def test_a_filter_keeps_the_passages_whose_attributes_have_its_values() -> None:
    passages = [
        Passage("Rewards expire 90 days after they are issued.", 0, doc="loyalty.md"),
        Passage("Gift cards never expire.", 0, doc="gift_cards.md"),
        Passage("Rewards and gift cards expire at midnight.", 0, doc="loyalty.md"),
    ]
    index = build(passages)
    assert {passage.doc for passage in index.search("do they expire", 3)} == {
        "loyalty.md",
        "gift_cards.md",
    }
    assert index.search("do they expire", 3, {"doc": "gift_cards.md"}) == [passages[1]]
    assert index.search("do they expire", 3, {"doc": "returns.md"}) == []
    # a passage without the attribute is not kept
    assert build([Note("Gift cards never expire.")]).search("expire", 1, {"doc": "a.md"}) == []


def test_command_line_prints_the_best_passages(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["How long does international delivery take?", "-k", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("1. international.md [")
    assert "7 to 14 business days" in out
