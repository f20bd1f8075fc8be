"""Finding every occurrence of a pattern through the word index, against a plain scan."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from pytest_chunkrecall.chunking.chunk import Chunk
from pytest_chunkrecall.corpus import Document
from pytest_chunkrecall.evaluation.chunk_map import ChunkMap
from pytest_chunkrecall.evaluation.finder import Finder
from pytest_chunkrecall.text.index import WordIndex
from pytest_chunkrecall.text.matcher import Matcher

from .test_number_edges import whole_occurrences

# Short words that are prefixes, suffixes and infixes of each other, punctuation,
# an underscore (a word character) and a non-ASCII letter.
ATOMS = st.sampled_from(["a", "b", "ab", "ba", "aa", " ", "  ", ".", ",", "-", "_", "é", "1"])
TEXT = st.lists(ATOMS, max_size=25).map("".join)
TEXTS = st.lists(TEXT, min_size=1, max_size=3)


def scan(texts: list[str], pattern: str) -> list[tuple[int, int]]:
    """Every occurrence by a scan of every position, numbers held whole (``1`` is not in
    ``11``)."""
    return [
        (number, at) for number, text in enumerate(texts) for at in whole_occurrences(text, pattern)
    ]


@st.composite
def texts_and_pattern(draw):
    texts = draw(TEXTS)
    if draw(st.booleans()) and any(texts):
        text = draw(st.sampled_from([t for t in texts if t]))
        i = draw(st.integers(0, len(text) - 1))
        j = draw(st.integers(i + 1, min(len(text), i + 8)))
        return texts, text[i:j]  # starts and ends anywhere, mid-word too
    return texts, draw(st.lists(ATOMS, min_size=1, max_size=4).map("".join))


@given(texts_and_pattern())
@example((["ab ab"], "b a"))
@example((["xab.", "ab"], "ab"))
@example(([".,.", ","], ","))
@example((["a_b a"], "_b"))
@example((["aab"], "ab"))
@example((["abab"], "bab"))
@example((["a.a"], ".a"))
@example((["é-é"], "-é"))
@example(([""], "a"))
@example((["11"], "1"))
def test_find_equals_a_scan_of_every_position(case):
    texts, pattern = case
    assert list(WordIndex(texts, scans_before_indexing=0).find(pattern)) == scan(texts, pattern)


def test_find_reuses_one_index_for_many_patterns():
    texts = ["The refund window is 30 days.", "Express shipping: 2 business days"]
    locator = WordIndex(texts, scans_before_indexing=0)
    for pattern in ["days", "30 days", "ays", "s: 2", " ", "Express", "refund window is 30 days."]:
        assert list(locator.find(pattern)) == scan(texts, pattern), pattern
    assert list(locator.find("")) == []


def shortest_passage(texts: list[str], start: str, end: str) -> int | None:
    """Length of the shortest passage that starts with ``start`` and ends with ``end``."""
    best = None
    for text in texts:
        for i in range(len(text)):
            if not text.startswith(start, i):
                continue
            for j in range(i + len(start), len(text) + 1):
                if text[i:j].endswith(end) and (best is None or j - i < best):
                    best = j - i
    return best


def space_of(texts: list[str]) -> Finder:
    documents = [Document(f"d{n}", text) for n, text in enumerate(texts)]
    chunks = [Chunk(t, f"d{n}", n, 0, len(t)) for n, t in enumerate(texts)]
    return Finder(documents, ChunkMap(chunks), chunks, Matcher("exact"))


WORDS = st.lists(st.sampled_from(["a", "b", "ab", " ", "."]), min_size=1, max_size=3).map("".join)


@given(TEXTS, WORDS, WORDS)
@example(["abcde abcde"], "abcde", "c")
@example(["a. a. a"], "a. a", ".")
def test_a_span_range_is_the_shortest_passage(texts, start, end):
    space = space_of(texts)
    located = space.passage(start, end)
    found = located[0] if located is not None else None
    expected = shortest_passage(texts, start, end)
    if expected is None:
        assert found is None
    else:
        assert found is not None
        assert found.startswith(start) and found.endswith(end)
        assert len(found) == expected
        assert any(found in text for text in texts)


def test_passage_picks_the_nearer_of_two_anchors():
    space = space_of(["Gift cards are sold here. Gift cards keep their value for 5 years."])
    found = space.passage("Gift cards", "5 years")
    assert found is not None
    passage, at = found
    assert passage == "Gift cards keep their value for 5 years"
    assert (at.start, at.end) == (26, 65)
    assert space.passage("Gift cards", "10 years") is None
    assert space.passage("5 years", "Gift cards") is None
