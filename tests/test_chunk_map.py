"""Which chunk holds a span whole, where a boundary cut it, and where plain-text chunks are
placed — against a literal scan."""

from __future__ import annotations

import csv
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_chunkrecall.chunkers import fixed_size
from pytest_chunkrecall.chunking.chunk import Chunk
from pytest_chunkrecall.chunking.placement import place
from pytest_chunkrecall.corpus import Document
from pytest_chunkrecall.evaluation.chunk_map import ChunkMap
from pytest_chunkrecall.evaluation.suite import Component, SuiteCache
from pytest_chunkrecall.retrievers import bm25
from pytest_chunkrecall.text.folding import fold_text
from pytest_chunkrecall.text.matcher import Matcher

from .conftest import CARE, POLICIES

# Intervals over a 60-character document: gaps, overlaps, nesting and duplicates; or the
# windows of a fixed-size chunker with any size and overlap.
INTERVAL = st.tuples(st.integers(0, 60), st.integers(0, 30)).map(lambda t: (t[0], t[0] + t[1]))
WINDOWS = (
    st.integers(1, 40)
    .flatmap(lambda size: st.tuples(st.just(size), st.integers(0, size - 1)))
    .map(lambda so: [(s, min(s + so[0], 60)) for s in range(0, 60, so[0] - so[1])])
)
INTERVALS = st.one_of(st.lists(INTERVAL, max_size=12), WINDOWS)
SPAN = st.tuples(st.integers(0, 70), st.integers(1, 30)).map(lambda t: (t[0], t[0] + t[1]))


def chunks_of(intervals: list[tuple[int, int]], doc: str = "d") -> list[Chunk]:
    return [Chunk("x" * (e - s), doc, i, s, e) for i, (s, e) in enumerate(intervals)]


@given(INTERVALS, SPAN)
def test_holder_is_a_chunk_that_holds_the_span_exactly_when_one_does(intervals, span):
    chunks = chunks_of(intervals)
    start, end = span
    holder = ChunkMap(chunks).holder("d", start, end)
    holds = [c for c in chunks if c.start <= start and c.end >= end]
    assert (holder is not None) == bool(holds)
    if holder is not None:
        assert holder in holds


@given(INTERVALS, SPAN)
def test_cut_is_the_end_of_the_farthest_reaching_chunk_else_the_next_start(intervals, span):
    chunks = chunks_of(intervals)
    start, end = span
    chunk_map = ChunkMap(chunks)
    if chunk_map.holder("d", start, end) is not None:
        return
    cut = chunk_map.cut("d", start, end)
    covering = [c for c in chunks if c.start <= start < c.end]
    after = sorted((c for c in chunks if c.start > start), key=lambda c: (c.start, c.end, c.index))
    if covering:
        left = max(c.end for c in covering)
        assert cut is not None and cut.left is not None
        assert cut.offset == cut.left.end == left
        assert start < cut.offset < end  # the boundary lies inside the span
    elif after:
        assert cut is not None and cut.left is None
        assert cut.offset == after[0].start
    else:
        assert cut is None
        return
    assert cut.right == (after[0] if after else None)


def test_holder_and_cut_ignore_other_documents_and_unplaced_chunks():
    chunks = [
        Chunk("abc", "a.md", 0, 0, 3),
        Chunk("zzzzzzzzzz", "b.md", 1, 0, 10),
        Chunk("ABCDEF", "a.md", 2, None, None),
    ]
    chunk_map = ChunkMap(chunks)
    assert chunk_map.holder("a.md", 1, 5) is None
    assert chunk_map.holder("b.md", 1, 5) == chunks[1]
    assert chunk_map.holder("c.md", 0, 1) is None
    assert chunk_map.cut("a.md", 1, 5).offset == 3
    assert chunk_map.unplaced == {"a.md": [chunks[2]]}
    assert chunk_map.placed("a.md") == [chunks[0]]


# The engine: documents chunked by a chunker that returns arbitrary slices (some
# rewritten, so that they cannot be placed), then located through match space.
# Slices and patterns fall between letters, never between a letter and its accent:
# "e" cut from "e\u0301" is text that the normalized document does not contain.
ATOMS = st.sampled_from(["a", "b", "ab", "ba", " ", "  ", ".", "\n", "é", "e\u0301"])


@st.composite
def corpus_and_cuts(draw):
    documents = draw(st.lists(st.lists(ATOMS, min_size=1, max_size=30), min_size=1, max_size=3))
    texts, cuts = [], []
    for atoms in documents:
        edges = [0]
        for atom in atoms:
            edges.append(edges[-1] + len(atom))
        pieces = []
        for _ in range(draw(st.integers(0, 6))):
            i = draw(st.integers(0, len(atoms) - 1))
            j = draw(st.integers(i + 1, min(len(atoms), i + 8)))
            rewrite = draw(st.booleans()) and draw(st.booleans())
            pieces.append((edges[i], edges[j], rewrite))
        pieces.sort()
        texts.append(("".join(atoms), edges))
        cuts.append(pieces)
    return texts, cuts


def suite_of(texts, cuts):
    documents = tuple(Document(f"doc{n}.md", text) for n, text in enumerate(texts))
    plans = iter(cuts)  # the chunker is called once per document, in order

    def chunker(text):
        return [text[i:j].upper() if rewrite else text[i:j] for i, j, rewrite in next(plans)]

    engine = SuiteCache()
    return engine.suite(documents, Component.of("slices", chunker), Component.of("bm25", bm25))


@given(corpus_and_cuts(), st.data(), st.sampled_from(["exact", "normalized"]))
def test_whole_in_some_chunk_agrees_with_a_literal_scan(corpus, data, mode):
    texts, cuts = corpus
    if not any(cuts):
        return  # a chunker that returns nothing is an error, tested elsewhere
    suite = suite_of([text for text, _ in texts], cuts)
    matcher = Matcher(mode)
    text, edges = data.draw(st.sampled_from(texts))
    i = data.draw(st.integers(0, len(edges) - 2))
    j = data.draw(st.integers(i + 1, len(edges) - 1))
    pattern = matcher.prepare(text[edges[i] : edges[j]])
    if not pattern:
        return
    location = suite.finder(matcher).locate(pattern)
    whole = any(pattern in matcher.prepare(c.text) for c in suite.chunks)
    assert location.whole == whole, (pattern, [c.text for c in suite.chunks])
    if whole:
        assert pattern in matcher.prepare(location.holder.text)
    else:
        assert location.present or mode == "normalized"


def test_whole_in_some_chunk_on_real_text(chunking_evaluation):
    """Every gold excerpt of a real corpus, located through the engine with fixed windows."""
    corpus = (chunking_evaluation / "corpora" / "state_of_the_union.md").read_text(encoding="utf-8")
    with open(chunking_evaluation / "questions_df.csv", encoding="utf-8") as handle:
        rows = [r for r in csv.DictReader(handle) if r["corpus_id"] == "state_of_the_union"]
    excerpts = [ref for row in rows for ref in json.loads(row["references"])]
    assert excerpts
    documents = (Document("sotu.md", corpus),)
    chunker = Component.of("fixed", fixed_size, {"size": 400, "overlap": 100})
    suite = SuiteCache().suite(documents, chunker, Component.of("bm25", bm25))
    windows = fixed_size(corpus, 400, 100)
    for mode in ("exact", "normalized"):
        matcher = Matcher(mode)
        space = suite.finder(matcher)
        for ref in excerpts:
            pattern = matcher.prepare(ref["content"])
            location = space.locate(pattern)
            whole = any(pattern in matcher.prepare(w) for w in windows)
            assert location.whole == whole, ref
            if not whole:
                occurrence = location.occurrence
                assert occurrence is not None, ref
                if mode == "exact":
                    assert corpus[occurrence.start : occurrence.end] == ref["content"]
                else:
                    assert fold_text(corpus[occurrence.start : occurrence.end]) == pattern


def placed_windows(text: str, size: int, overlap: int) -> list[tuple[int | None, int | None]]:
    chunker = Component.of("fixed", fixed_size, {"size": size, "overlap": overlap})
    suite = SuiteCache().suite((Document("d.md", text),), chunker, Component.of("bm25", bm25))
    return [(c.start, c.end) for c in suite.chunks]


def cut_at(text: str, size: int, overlap: int) -> list[tuple[int, int]]:
    """fixed_size's windows as offsets: from 0, until one reaches the end."""
    found = []
    for start in range(0, len(text), size - overlap):
        found.append((start, min(start + size, len(text))))
        if start + size >= len(text):
            break
    return found


@pytest.mark.parametrize("size, overlap", [(80, 0), (80, 24), (7, 6), (1, 0), (600, 0)])
def test_plain_string_chunks_are_placed_where_they_were_cut(size, overlap):
    text = POLICIES + "\n" + CARE
    assert placed_windows(text, size, overlap) == cut_at(text, size, overlap)


# Text-only chunks of repeated text could each be anywhere the text repeats; the
# chunker's configured overlap, then its stride, says which repetition is meant.
@pytest.mark.parametrize("size, overlap", [(80, 0), (80, 24), (30, 0), (45, 15)])
def test_windows_over_repeated_text_are_placed_where_they_were_cut(size, overlap):
    text = "The refund window is 30 days. " * 5
    assert placed_windows(text, size, overlap) == cut_at(text, size, overlap)


# A splitter that splits on newlines and joins the lines again with one newline
# (LangChain's CharacterTextSplitter) turns a blank line into a single newline.
def test_chunks_whose_whitespace_was_rejoined_are_placed_up_to_whitespace():
    doc = "Returns.\n\nThe refund window\tis 30 days.\n\n\nShipping  is free."
    pieces = [("Returns.\nThe refund window is 30 days.", None), ("Shipping is free.", None)]
    assert place(doc, pieces) == [(0, doc.index(" days.") + 6), (doc.index("Shipping"), len(doc))]
    # and as normalized matching sees text: case folded too
    assert place(doc, [("SHIPPING IS FREE.", None)]) == [(doc.index("Shipping"), len(doc))]


def test_text_the_document_does_not_hold_even_up_to_whitespace_is_not_placed():
    doc = "The refund window is 30 days."
    assert place(doc, [("The refund period is 30 days.", None), ("window is 30", 9)]) == [
        None,
        (11, 23),
    ]


@given(
    st.lists(st.sampled_from([" ", "\n", "\n\n", "\t", "  \n "]), min_size=2, max_size=40),
    st.lists(st.integers(1, 6), min_size=1, max_size=10),
)
def test_rejoined_windows_of_words_are_placed_where_their_words_are(separators, widths):
    # Distinct words, any whitespace between them; each chunk is a run of words
    # joined by one space: it must be placed from its first word to its last.
    words = [f"w{i}" for i in range(len(separators) + 1)]
    doc = words[0] + "".join(sep + word for sep, word in zip(separators, words[1:], strict=True))
    starts = [doc.find(w + sep) for w, sep in zip(words, separators, strict=False)] + [
        len(doc) - len(words[-1])
    ]
    runs, first = [], 0
    for width in widths:
        if first >= len(words):
            break
        last = min(first + width, len(words)) - 1
        runs.append((first, last))
        # neighbouring chunks of several words share one, as overlapping chunks do
        first = last if last > first else last + 1
        if first == len(words) - 1:
            break
    pieces = [(" ".join(words[a : b + 1]), None) for a, b in runs]
    expected = [(starts[a], starts[b] + len(words[b])) for a, b in runs]
    assert place(doc, pieces) == expected


def test_a_start_offset_back_to_an_earlier_repetition_gives_way_to_the_one_ahead():
    # LangChain's start_index, after a chunk it could not find, searches again
    # from near the top of the document, and finds a passage that repeats.
    doc = "Refunds take 30 days. Customs. Refunds take 30 days."
    assert place(doc, [("Customs.", None), ("Refunds take 30 days.", 0)]) == [(22, 30), (31, 52)]
    # An offset back to text that does not repeat ahead is the chunker's word.
    assert place(doc, [("Customs.", None), ("take 30 days. Customs", 8)]) == [(22, 30), (8, 29)]


def test_a_chunk_nearby_up_to_whitespace_wins_over_the_same_text_verbatim_far_ahead():
    filler = "Lorem ipsum dolor sit amet. " * 200
    doc = "Returns.\n\nRefunds take 30 days.\n" + filler + "\nReturns.\nRefunds take 30 days."
    pieces = [("Returns.\nRefunds take 30 days.", None), ("Lorem ipsum dolor sit amet.", None)]
    assert place(doc, pieces) == [(0, 31), (32, 59)]


def test_start_offsets_are_kept_whatever_the_order_of_the_chunks():
    doc = "Intro. Note: see below. Body text. Note: see below."
    parent_then_children = [(doc, 0), ("Intro.", 0), ("Note: see below.", 7), ("Body text.", 24)]
    assert place(doc, parent_then_children) == [(0, 51), (0, 6), (7, 23), (24, 34)]
    backwards = [("Body text.", 24), ("Note: see below.", 7), ("Intro.", 0)]
    assert place(doc, backwards) == [(24, 34), (7, 23), (0, 6)]


def test_normalized_placement_keeps_to_whole_characters_from_the_cursor_on():
    accent = "e\u0301"  # one character of folded text, two of the document
    doc = f"{accent}tude  one\n\n{accent}tude  one"
    assert place(doc, [(f"{accent}tude one", None)] * 2) == [(0, 11), (13, 24)]
    # "Sß" folds to "sss", which "SSß" holds from 0 only by ending inside the ß
    assert place("SSß", [("Sß", None)]) == [(1, 3)]


def test_an_earlier_normalized_match_wins_over_a_verbatim_one_that_skips_text():
    sentences = [f"Sentence {n} of the terms runs on for a while." for n in range(30)]
    doc = "Terms and\nconditions apply. " + " ".join(sentences) + " Terms and conditions apply."
    pieces = [("Terms and conditions apply.", None)] + [(s, None) for s in sentences]
    found = place(doc, pieces)
    assert found[0] == (0, 27)
    assert found[1:] == [(doc.index(s), doc.index(s) + len(s)) for s in sentences]


ACCENTED = st.sampled_from(["straße", "Café", "cafe\u0301", "Ärger", "ﬁne", "word", "Æon"])


@given(
    st.lists(ACCENTED, min_size=2, max_size=25),
    st.lists(st.sampled_from([" ", "\n", "\n\n", "  \t"]), min_size=25, max_size=25),
    st.lists(st.tuples(st.integers(1, 5), st.sampled_from(["verbatim", "rejoined", "upper"]))),
)
def test_rewritten_chunks_of_distinct_words_are_placed_where_they_were_cut(bases, gaps, plans):
    """Whatever the whitespace, case or Unicode form a chunk was given back in."""
    words = [f"{base}{i}" for i, base in enumerate(bases)]
    starts, doc = [], ""
    for word, gap in zip(words, gaps, strict=False):
        starts.append(len(doc) + (len(gap) if doc else 0))
        doc += (gap if doc else "") + word
    pieces, expected, first = [], [], 0
    for width, how in plans:
        if first >= len(words):
            break
        last = min(first + width, len(words)) - 1
        begin, end = starts[first], starts[last] + len(words[last])
        text = {
            "verbatim": doc[begin:end],
            "rejoined": " ".join(words[first : last + 1]),
            "upper": doc[begin:end].upper(),
        }[how]
        pieces.append((text, None))
        expected.append((begin, end))
        first = last + 1
    assert place(doc, pieces) == expected


def test_a_chunk_placed_beside_its_verbatim_text_still_holds_it_in_exact_mode():
    """Found by the property above: 'é' placed at a decomposed e + U+0301 before its own 'é'."""
    texts = [("a" * 15 + "e\u0301" + "\u00e9", None), ("\u00e9", None)]
    suite = suite_of([text for text, _ in texts], [[(17, 18, False)], []])
    location = suite.finder(Matcher("exact")).locate("\u00e9")
    assert location.whole
