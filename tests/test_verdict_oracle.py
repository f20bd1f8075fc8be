"""The verdict against a literal reading of its definition, on random corpora, chunkings and pins.

The oracle scans every chunk's text: no chunk map, no word index, no early stop.
Documents are drawn from a few words so that needles repeat, inside and across
documents; chunkings are arbitrary windows (gaps and overlaps included), spans
are slices of a document, and a case may pin a subset of the documents.

A hit is decided from the retrieved chunks alone, without the corpus search that
explains a miss: the properties at the end check that this changes nothing, in
every match mode, against the same case judged with the corpus searched.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, replace

import pytest
from hypothesis import event, example, given
from hypothesis import strategies as st

from pytest_chunkrecall.chunking.chunk import Chunk
from pytest_chunkrecall.corpus import Document
from pytest_chunkrecall.evaluation.finder import Finder
from pytest_chunkrecall.evaluation.suite import Component, SuiteCache
from pytest_chunkrecall.evaluation.verdict import deepen, judge
from pytest_chunkrecall.gold import Case
from pytest_chunkrecall.text.matcher import Matcher

WORDS = ("30", "days", "fee", "trash", "the")
SPACES = (" ",)
# Words that normalized matching reads alike (case, ß and ss, the ligature fi),
# and separators that it collapses.
FOLDED_WORDS = ("30", "Days", "DAYS", "days", "Straße", "strasse", "ﬁle", "file", "the")
FOLDED_SPACES = (" ", "  ", "\n", " \t ")
# With decomposed letters too: a window can cut "e" from its accent, and then
# holds "cafe" where the document says "café".
ACCENTED_WORDS = (*FOLDED_WORDS, "cafe", "cafe\u0301", "café", "Éte", "e\u0301te")


@dataclass(frozen=True)
class World:
    documents: tuple[Document, ...]
    windows: dict[str, list[tuple[int, int]]]  # per document, chunk [start, end)
    ranking: list[int]  # the retriever's order over the chunk list
    needle: str
    span: str | None
    docs: frozenset[str] | None
    k: int


@st.composite
def worlds(draw: st.DrawFn, words: Sequence[str] = WORDS, spaces: Sequence[str] = SPACES) -> World:
    count = draw(st.integers(1, 3))
    texts = []
    for number in range(count):
        # each document starts with its own word, so that no two are the same text
        drawn = draw(st.lists(st.sampled_from(words), min_size=2, max_size=14))
        text = f"doc{number}"
        for word in drawn:
            text += draw(st.sampled_from(spaces)) + word
        texts.append(text)
    documents = tuple(Document(f"d{number}.md", text) for number, text in enumerate(texts))
    windows = {}
    for doc in documents:
        size = len(doc.text)
        cuts = draw(
            st.lists(
                st.tuples(st.integers(0, size - 1), st.integers(1, 40)), min_size=1, max_size=6
            )
        )
        windows[doc.id] = [(start, min(size, start + width)) for start, width in cuts]
    total = sum(len(w) for w in windows.values())
    ranking = draw(st.permutations(list(range(total))))
    source = draw(st.sampled_from(documents))
    places = [match.span() for match in re.finditer(r"\S+", source.text)]
    first = draw(st.integers(0, len(places) - 1))
    last = draw(st.integers(first + 1, min(len(places), first + 4)))
    span = source.text[places[first][0] : places[last - 1][1]]
    start, end = draw(st.sampled_from(places[first:last]))
    needle = source.text[start:end]
    if draw(st.integers(0, 3)) == 0:  # a needle from anywhere, with no span
        needle, span_or_none = draw(st.sampled_from(words)), None
    else:
        span_or_none = span if span != needle else None
    pin = draw(st.none() | st.sets(st.sampled_from([d.id for d in documents]), min_size=1))
    return World(
        documents,
        windows,
        ranking,
        needle,
        span_or_none,
        frozenset(pin) if pin is not None else None,
        draw(st.integers(1, 4)),
    )


def build(world: World):
    def chunker(text: str) -> list[dict[str, object]]:
        doc = next(d for d in world.documents if d.text == text)
        return [{"text": text[a:b], "start": a} for a, b in world.windows[doc.id]]

    def retriever(chunks: list[Chunk]):
        return lambda question, k: list(world.ranking[:k])

    suite = SuiteCache().suite(
        world.documents, Component.of("windows", chunker), Component.of("ranked", retriever)
    )
    return suite


def as_written(text: str) -> str:
    return text


def normalized(text: str) -> str:
    """The normalized match mode's definition: NFKC, casefolded, whitespace runs collapsed."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def oracle(
    world: World, chunks: tuple[Chunk, ...], prepare=as_written
) -> tuple[str, int | None, int | None]:
    """(verdict, rank, holding_rank) by the definitions, scanning chunk texts."""
    unit = prepare(world.span if world.span is not None else world.needle)
    allowed = world.docs

    def counts(chunk: Chunk) -> bool:
        return allowed is None or chunk.doc in allowed

    def holds(chunk: Chunk) -> bool:
        return counts(chunk) and unit in prepare(chunk.text)

    in_corpus = any(
        unit in prepare(doc.text) for doc in world.documents if allowed is None or doc.id in allowed
    )
    if not in_corpus:
        return "absent", None, None
    ranked = [chunks[number] for number in world.ranking]
    holding = next((rank for rank, chunk in enumerate(ranked, 1) if holds(chunk)), None)
    if holding is not None and holding <= world.k:
        return "hit", holding, holding
    if any(holds(chunk) for chunk in chunks):
        return "ranked_out", None, holding
    return "split", None, None


def judged(world: World, mode: str = "exact", *, every_holder: bool = True):
    suite = build(world)
    finder = suite.finder(Matcher(mode))
    case = Case("c", "q", (world.needle,), world.span)
    result = judge(
        case,
        suite.search("q", world.k),
        finder,
        gold_file="g",
        k=world.k,
        docs=world.docs,
        every_holder=every_holder,
    )
    depth = len(suite.chunks)
    if result.verdict == "ranked_out":
        result = deepen(
            result, case, suite.search("q", depth), finder, depth=depth, docs=world.docs
        )
    return suite, result


@given(worlds())
def test_verdicts_rank_and_holding_rank_equal_a_literal_scan(world):
    suite, result = judged(world)
    verdict, rank, holding = oracle(world, suite.chunks)
    event(f"{verdict}, pinned={world.docs is not None}, span={world.span is not None}")
    assert (result.verdict, result.rank) == (verdict, rank)
    assert result.holding_rank == holding
    assert result.span_split == (verdict == "split")


@given(worlds(FOLDED_WORDS, FOLDED_SPACES))
def test_normalized_verdicts_equal_a_literal_scan_of_normalized_text(world):
    suite, result = judged(world, "normalized")
    verdict, rank, holding = oracle(world, suite.chunks, normalized)
    event(f"{verdict}, pinned={world.docs is not None}, span={world.span is not None}")
    assert (result.verdict, result.rank) == (verdict, rank)
    assert result.holding_rank == holding
    assert result.span_split == (verdict == "split")


def judged_with_the_corpus_searched(world: World, mode: str):
    """The case judged as if no retrieved chunk could vouch for a hit: the corpus decides."""
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(Finder, "vouches", lambda self, chunk, pattern: False)
        return judged(world, mode)[1]


# The one window holds "cafe", cut from its accent: the document says "café", so
# in normalized mode the needle is absent though the retrieved chunk has it.
CUT_FROM_ITS_ACCENT = World(
    (Document("d0.md", "doc0 cafe\u0301 the"),), {"d0.md": [(0, 9)]}, [0], "cafe", None, None, 1
)


@pytest.mark.parametrize("mode", ["exact", "normalized", "fuzzy"])
@given(world=worlds(ACCENTED_WORDS, FOLDED_SPACES))
@example(world=CUT_FROM_ITS_ACCENT)
def test_a_hit_from_the_top_k_alone_is_the_entry_the_corpus_search_gives(mode, world):
    searched = judged_with_the_corpus_searched(world, mode)
    _, result = judged(world, mode)
    event(f"{mode}: {result.verdict}")
    assert result == searched


# The second window starts on the accent that folding joins to the "e" before it: the
# folded "éte" there begins outside that chunk, and the one it holds is the "Éte" after.
STARTS_ON_AN_ACCENT = World(
    (Document("d0.md", "doc0 30 Days \t e\u0301te \xc9te"),),
    {"d0.md": [(0, 1), (16, 23)]},
    [0, 1],
    "\xc9te",
    None,
    None,
    2,
)


# The one retrieved window of d0 ends between "cafe" and its U+0301, and d1 has "cafe"
# where no chunk holds it whole: the case is a hit, and d0 has no place for it.
ENDS_BEFORE_AN_ACCENT = World(
    (
        Document("d0.md", "doc0  cafe\u0301 30 30"),
        Document("d1.md", "doc1 30 30 cafe"),
    ),
    {"d0.md": [(0, 10)], "d1.md": [(0, 1)]},
    [0, 1],
    "cafe",
    None,
    None,
    1,
)


def places_inside(text: str, chunk: Chunk, unit: str) -> bool:
    """Whether ``text`` has ``unit`` (normalized) between the chunk's offsets, at a place
    that parts no letter from a combining mark after or before it."""
    low, high = chunk.start, chunk.end
    return any(
        normalized(text[i:j]) == unit
        and not unicodedata.combining(text[i])
        and (j == len(text) or not unicodedata.combining(text[j]))
        for i in range(low, high)
        for j in range(i + 1, high + 1)
    )


@given(world=worlds(ACCENTED_WORDS, FOLDED_SPACES))
@example(world=STARTS_ON_AN_ACCENT)
@example(world=ENDS_BEFORE_AN_ACCENT)
def test_a_hit_places_its_span_in_the_first_retrieved_chunk_that_holds_it(world):
    suite, result = judged(world, "normalized")
    if result.verdict != "hit":
        return
    unit = normalized(world.span if world.span is not None else world.needle)
    holders = [
        chunk
        for chunk in (suite.chunks[number] for number in world.ranking[: world.k])
        if (world.docs is None or chunk.doc in world.docs) and unit in normalized(chunk.text)
    ]
    at = result.span_at
    first = holders[0]
    if not places_inside(suite.document(first.doc).text, first, unit):
        # The first holder has the unit only where its window parts a letter from the
        # accent after it: its document, folded whole, has no such place, so none is named
        # (the corpus vouched for the hit elsewhere).
        assert at is None
        return
    assert (at.doc, first.start <= at.start, at.end <= first.end) == (first.doc, True, True)
    assert normalized(suite.document(at.doc).text[at.start : at.end]) == unit
    assert {f"{chunk.doc}#{chunk.index}" for chunk in holders} <= set(result.holding_ids)


def patterns_searched(monkeypatch, method: str) -> list[str]:
    """The patterns each later call of ``Finder.<method>`` searches the corpus for."""
    searched: list[str] = []
    original = getattr(Finder, method)

    def search(self, pattern, docs=None):
        searched.append(pattern)
        return original(self, pattern, docs)

    monkeypatch.setattr(Finder, method, search)
    return searched


def test_a_hit_reads_no_corpus_and_a_miss_does(monkeypatch):
    documents = (
        Document("a.md", "The refund window is 30 days from delivery."),
        Document("b.md", "Gift cards never expire."),
    )
    windows = {"a.md": [(0, 24), (21, 44)], "b.md": [(0, 24)]}
    world = World(documents, windows, [1, 0, 2], "30 days", None, None, 1)
    searched = patterns_searched(monkeypatch, "locate")
    for mode in ("exact", "normalized", "fuzzy"):
        _, result = judged(world, mode)
        assert (result.verdict, result.rank, searched) == ("hit", 1, [])
        assert result.holding_ids == ["a.md#1"]
    missed = World(documents, windows, [2, 0, 1], "30 days", None, None, 1)
    _, result = judged(missed, "normalized")
    assert (result.verdict, result.holding_ids, searched) == ("ranked_out", ["a.md#1"], ["30 days"])


def test_a_hit_not_asked_for_every_holder_searches_no_corpus_for_them(monkeypatch):
    documents = (Document("a.md", "The refund window is 30 days from delivery."),)
    windows = {"a.md": [(0, 24), (21, 44), (10, 40)]}
    world = World(documents, windows, [1, 0, 2], "30 days", None, None, 1)
    searched = patterns_searched(monkeypatch, "occurrences")
    for mode in ("exact", "normalized", "fuzzy"):
        _, result = judged(world, mode, every_holder=False)
        assert (result.verdict, result.holding_ids, searched) == ("hit", ["a.md#1"], [])
    _, result = judged(world, "normalized")
    assert (result.verdict, result.holding_ids) == ("hit", ["a.md#1", "a.md#2"])
    assert searched == ["30 days"]


@pytest.mark.parametrize("mode", ["exact", "normalized", "fuzzy"])
@given(world=worlds(ACCENTED_WORDS, FOLDED_SPACES))
def test_without_every_holder_a_hit_lists_its_retrieved_holders_and_nothing_else_changes(
    mode, world
):
    suite, every = judged(world, mode)
    _, retrieved = judged(world, mode, every_holder=False)
    event(f"{mode}: {every.verdict}")
    if every.verdict != "hit":
        assert retrieved == every
        return
    holders = {
        f"{chunk.doc}#{chunk.index}"
        for chunk in (suite.chunks[number] for number in world.ranking[: world.k])
        if f"{chunk.doc}#{chunk.index}" in every.holding_ids
    }
    assert holders <= set(retrieved.holding_ids) <= set(every.holding_ids)
    assert retrieved == replace(every, holding_ids=retrieved.holding_ids)


@pytest.mark.parametrize(("mode", "prepare"), [("exact", as_written), ("normalized", normalized)])
@given(world=worlds(FOLDED_WORDS, FOLDED_SPACES))
def test_holding_ids_are_every_chunk_whose_text_holds_the_span(mode, prepare, world):
    suite, result = judged(world, mode)
    unit = prepare(world.span if world.span is not None else world.needle)
    holders = {
        f"{chunk.doc}#{chunk.index}"
        for chunk in suite.chunks
        if (world.docs is None or chunk.doc in world.docs) and unit in prepare(chunk.text)
    }
    event(f"{mode}: {result.verdict}, {len(holders)} holders")
    assert set(result.holding_ids) == holders
    assert result.holding_ids == sorted(holders)
