"""A corpus in one match space, once: every mode that folds text reads the same folded copy."""

from __future__ import annotations

from pytest_chunkrecall.chunkers import fixed_size
from pytest_chunkrecall.corpus import Document
from pytest_chunkrecall.evaluation.chunk_map import ChunkMap
from pytest_chunkrecall.evaluation.finder import Finder
from pytest_chunkrecall.evaluation.suite import Component, Suite, chunk_corpus
from pytest_chunkrecall.retrievers import bm25
from pytest_chunkrecall.text.folding import fold
from pytest_chunkrecall.text.matcher import Matcher

from .conftest import CARE, POLICIES

DOCUMENTS = (Document("docs/policies.md", POLICIES), Document("docs/care.md", CARE))


def suite() -> Suite:
    chunker = Component.of("fixed_size", fixed_size, {"size": 80, "overlap": 0})
    return Suite(DOCUMENTS, chunk_corpus(DOCUMENTS, chunker), chunker, Component.of("bm25", bm25))


def test_normalized_and_fuzzy_at_any_threshold_share_one_folded_corpus_and_index() -> None:
    built = suite()
    normalized = built.finder(Matcher("normalized"))
    fuzzy = built.finder(Matcher("fuzzy", 80.0))
    stricter = built.finder(Matcher("fuzzy", 95.0))
    assert normalized.space is fuzzy.space is stricter.space
    assert normalized.space.texts() == [fold(doc.text).text for doc in DOCUMENTS]
    assert normalized.space.index() is stricter.space.index()
    exact = built.finder(Matcher("exact"))
    assert exact.space is not normalized.space
    assert exact.space.texts() == [doc.text for doc in DOCUMENTS]


def test_a_shared_space_finds_what_a_finder_of_its_own_finds() -> None:
    built = suite()
    built.finder(Matcher("normalized")).locate("never soak the leather")  # the space is made
    chunks = built.chunks
    for matcher in (Matcher("normalized"), Matcher("fuzzy", 80.0), Matcher("exact")):
        shared = built.finder(matcher)
        alone = Finder(DOCUMENTS, ChunkMap(chunks), chunks, matcher)
        for text in ("days", "the refund window is 30 days", "Never  soak", "leather"):
            pattern = matcher.prepare(text)
            assert list(shared.occurrences(pattern)) == list(alone.occurrences(pattern))
            assert shared.holders(pattern) == alone.holders(pattern)
