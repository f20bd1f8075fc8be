"""The holding rank of a deeper retrieval against the text comparison it stands for.

A miss's deeper retrieval asks of each result whether it holds the span. A chunk
of the corpus whose text is its document's (``Finder.verbatim``) is looked up
among the chunks the corpus search found holding it; any other result has its
text prepared and compared, as the top k's are. These properties draw corpora
where the two could part: numbers written against each other ("30130"), letters
cut from their combining accents, chunks whose text the chunker changed (case,
a prefix) or could not place, text-only results, pins, ``{from, to}`` spans and
several needles; in every match mode, the rank is the one the text comparison of
every result gives.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import assume, event, example, given
from hypothesis import strategies as st

from pytest_chunkrecall.corpus import Document
from pytest_chunkrecall.evaluation.finder import Finder
from pytest_chunkrecall.evaluation.suite import Component, Suite, SuiteCache
from pytest_chunkrecall.evaluation.units import holding_rank, units_of
from pytest_chunkrecall.gold import Case, SpanRange
from pytest_chunkrecall.text.matcher import Matcher

WORDS = ("30", "130", "3", "m\u00b2", "days", "DAYS", "cafe", "cafe\u0301", "café", "ﬁle", "the")
# The empty separator writes words against each other: "30" then "130" reads "30130".
SEPARATORS = (" ", "  ", "\n", "")
# How a window's text reaches the chunk list: as the document has it, in capitals
# (placed as normalized matching reads it), with a prefix (placed nowhere).
VARIANTS = ("verbatim", "capitals", "prefixed")


@dataclass(frozen=True)
class Window:
    doc: int
    start: int
    end: int
    variant: str


@dataclass(frozen=True)
class World:
    texts: tuple[str, ...]
    windows: tuple[Window, ...]
    ranking: tuple[int | str, ...]  # chunk numbers, and a text that may be no chunk
    case: Case
    docs: frozenset[str] | None


def doc_id(number: int) -> str:
    return f"d{number}.md"


@st.composite
def worlds(draw: st.DrawFn) -> World:
    texts = []
    for number in range(draw(st.integers(1, 3))):
        text = f"doc{number}"
        for word in draw(st.lists(st.sampled_from(WORDS), min_size=2, max_size=12)):
            text += draw(st.sampled_from(SEPARATORS)) + word
        texts.append(text)
    windows = []
    for number, text in enumerate(texts):
        for _ in range(draw(st.integers(1, 6))):
            start = draw(st.integers(0, len(text) - 1))
            end = min(len(text), start + draw(st.integers(1, 30)))
            windows.append(Window(number, start, end, draw(st.sampled_from(VARIANTS))))
    ranking: list[int | str] = list(draw(st.permutations(range(len(windows)))))
    source = draw(st.sampled_from(texts))
    start = draw(st.integers(0, len(source) - 1))
    end = draw(st.integers(start + 1, min(len(source), start + 16)))
    passage = source[start:end].strip()
    assume(passage)  # a gold file has no blank needle or span
    ranking.insert(draw(st.integers(0, len(ranking))), passage.lower())
    needle = draw(st.sampled_from([passage, *WORDS]))
    shape = draw(st.sampled_from(["needle", "needles", "span", "from-to"]))
    if shape == "needles":
        case = Case("c", "q", (needle, draw(st.sampled_from(WORDS))))
    elif shape == "span":
        case = Case("c", "q", (passage.split()[0],), passage)
    elif shape == "from-to":
        case = Case("c", "q", (needle,), SpanRange(needle, draw(st.sampled_from(WORDS))))
    else:
        case = Case("c", "q", (needle,))
    pinned = st.sets(st.sampled_from([doc_id(number) for number in range(len(texts))]), min_size=1)
    pin = draw(st.none() | pinned)
    return World(
        tuple(texts), tuple(windows), tuple(ranking), case, frozenset(pin) if pin else None
    )


def build(world: World) -> Suite:
    documents = tuple(Document(doc_id(n), text) for n, text in enumerate(world.texts))

    def chunker(text: str) -> list[dict[str, object]]:
        number = world.texts.index(text)
        chunks: list[dict[str, object]] = []
        for window in world.windows:
            if window.doc != number:
                continue
            piece = text[window.start : window.end]
            if window.variant == "capitals":
                piece = piece.upper()
            elif window.variant == "prefixed":
                piece = "§ " + piece
            chunks.append({"text": piece, "start": window.start})
        return chunks

    def retriever(chunks: list[object]):
        order = [item for item in world.ranking if not isinstance(item, int) or item < len(chunks)]
        return lambda question, k: order[:k]

    return SuiteCache().suite(
        documents, Component.of("windows", chunker), Component.of("ranked", retriever)
    )


def compared(world: World, finder: Finder, results) -> int | None:
    """The holding rank by the text comparison: every result's text prepared and compared."""
    matcher, docs = finder.matcher, world.docs
    counted = [
        (rank, matcher.prepare(result.chunk.text if result.chunk is not None else result.text))
        for rank, result in enumerate(results, start=1)
        if docs is None or (result.chunk is not None and result.chunk.doc in docs)
    ]
    ranks = [
        next((rank for rank, text in counted if matcher.contains(text, pattern)), None)
        for pattern in units_of(world.case, finder, docs).patterns
    ]
    if not ranks or None in ranks:
        return None
    return max(rank for rank in ranks if rank is not None)


# A window of d0 ends between "cafe" and its accent, and another holds "cafe" of
# d1 whole: the cut window's own text holds "cafe", though its document there says "café".
CUT_FROM_ITS_ACCENT = World(
    ("doc0 cafe\u0301 the", "doc1 cafe"),
    (Window(0, 0, 9, "verbatim"), Window(1, 0, 9, "verbatim")),
    (0, 1, "x"),
    Case("c", "q", ("cafe",)),
    None,
)
# A window of d0 starts inside "130 days" and holds "30 days" as its own text has it.
INSIDE_A_NUMBER = World(
    ("doc0 130 days", "doc1 30 days"),
    (Window(0, 6, 13, "verbatim"), Window(1, 0, 12, "verbatim")),
    (0, 1, "x"),
    Case("c", "q", ("30 days",)),
    None,
)

# "²" folds to "2": a window of d0 starting after it holds "30 days" as its own text
# has it, where the document folded reads "230 days".
AFTER_A_SUPERSCRIPT = World(
    ("doc0 m\u00b230 days", "doc1 30 days"),
    (Window(0, 7, 14, "verbatim"), Window(1, 0, 12, "verbatim")),
    (0, 1, "x"),
    Case("c", "q", ("30 days",)),
    None,
)
# d0 writes an Arabic letter's marks in another order than NFKC puts them: folding the
# document mark by mark keeps that order, the chunk's text folded whole does not.
MARKS_IN_ANOTHER_ORDER = World(
    ("doc0 \u0628\u0651\u064e", "doc1 \u0628\u064e\u0651"),
    (Window(0, 0, 8, "verbatim"), Window(1, 0, 8, "verbatim")),
    (0, 1, "x"),
    Case("c", "q", ("\u0628\u064e\u0651",)),
    None,
)

# The chunker wrote d0's "days" in capitals, where d1 has "DAYS": in exact mode the
# chunk's own text holds "DAYS", though its place in d0 does not.
CHANGED_BY_THE_CHUNKER = World(
    ("doc0 days", "doc1 DAYS"),
    (Window(0, 5, 9, "capitals"), Window(1, 0, 9, "verbatim")),
    (0, 1, "x"),
    Case("c", "q", ("DAYS",)),
    None,
)


# a text result that is some chunk's text is that chunk, returned twice: it counts once
@pytest.mark.filterwarnings("ignore::pytest_chunkrecall.retrieval.duplicates.RetrievalWarning")
@pytest.mark.parametrize("mode", ["exact", "normalized", "fuzzy"])
@given(world=worlds())
@example(world=CUT_FROM_ITS_ACCENT)
@example(world=INSIDE_A_NUMBER)
@example(world=MARKS_IN_ANOTHER_ORDER)
@example(world=AFTER_A_SUPERSCRIPT)
@example(world=CHANGED_BY_THE_CHUNKER)
def test_the_holding_rank_is_the_rank_the_text_comparison_gives(mode, world):
    suite = build(world)
    finder = suite.finder(Matcher(mode))
    results = suite.search("q", len(world.ranking))
    found, _ = holding_rank(world.case, results, finder, world.docs)
    verbatim = sum(finder.verbatim(r.chunk) for r in results if r.chunk is not None)
    event(f"{mode}: rank {'none' if found is None else 'found'}, verbatim results {verbatim > 0}")
    assert found == compared(world, suite.finder(Matcher(mode)), results)


@pytest.mark.parametrize(
    ("world", "mode"),
    [
        (CUT_FROM_ITS_ACCENT, "normalized"),
        (INSIDE_A_NUMBER, "normalized"),
        (INSIDE_A_NUMBER, "exact"),
        (MARKS_IN_ANOTHER_ORDER, "normalized"),
        (AFTER_A_SUPERSCRIPT, "normalized"),
        (CHANGED_BY_THE_CHUNKER, "exact"),
    ],
)
def test_where_the_corpus_search_misses_a_chunk_that_holds_it_its_text_decides(world, mode):
    """In each example the first chunk's own text holds the needle and the corpus search
    does not list it: the rank must come from the text there."""
    suite = build(world)
    finder = suite.finder(Matcher(mode))
    pattern = units_of(world.case, finder, None).patterns[0]
    first = suite.chunks[0]
    assert finder.matcher.contains(finder.prepared(first), pattern)
    assert first not in finder.holders(pattern)
    assert not finder.verbatim(first)
    found, _ = holding_rank(world.case, suite.search("q", 3), finder, None)
    assert found == 1
