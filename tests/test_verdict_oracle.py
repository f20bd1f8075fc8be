"""The verdict against a literal reading of its definition, on random corpora, chunkings and pins.

The oracle scans every chunk's text: no chunk map, no word index, no early stop.
Documents are drawn from a few words so that needles repeat, inside and across
documents; chunkings are arbitrary windows (gaps and overlaps included), spans
are slices of a document, and a case may pin a subset of the documents.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import event, given, settings
from hypothesis import strategies as st

from pytest_chunkrecall.chunking.chunk import Chunk
from pytest_chunkrecall.corpus import Document
from pytest_chunkrecall.evaluation.suite import Component, SuiteCache
from pytest_chunkrecall.evaluation.verdict import deepen, judge
from pytest_chunkrecall.gold import Case
from pytest_chunkrecall.text.matcher import Matcher

WORDS = ("30", "days", "fee", "trash", "the")


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
def worlds(draw: st.DrawFn) -> World:
    count = draw(st.integers(1, 3))
    documents = tuple(
        # each document starts with its own word, so that no two are the same text
        Document(
            f"d{n}.md",
            " ".join([f"doc{n}", *draw(st.lists(st.sampled_from(WORDS), min_size=2, max_size=14))]),
        )
        for n in range(count)
    )
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
    words = source.text.split(" ")
    first = draw(st.integers(0, len(words) - 1))
    last = draw(st.integers(first + 1, min(len(words), first + 4)))
    span = " ".join(words[first:last])
    needle = draw(st.sampled_from(words[first:last]))
    if draw(st.integers(0, 3)) == 0:  # a needle from anywhere, with no span
        needle, span_or_none = draw(st.sampled_from(WORDS)), None
    else:
        span_or_none = span if span != needle else None
    pin = draw(st.none() | st.sets(st.sampled_from([d.id for d in documents]), min_size=1))
    return World(
        documents, windows, ranking, needle, span_or_none,
        frozenset(pin) if pin is not None else None, draw(st.integers(1, 4)),
    )  # fmt: skip


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


def oracle(world: World, chunks: tuple[Chunk, ...]) -> tuple[str, int | None, int | None]:
    """(verdict, rank, holding_rank) by the definitions, scanning chunk texts."""
    unit = world.span if world.span is not None else world.needle
    allowed = world.docs

    def counts(chunk: Chunk) -> bool:
        return allowed is None or chunk.doc in allowed

    in_corpus = any(unit in d.text for d in world.documents if allowed is None or d.id in allowed)
    if not in_corpus:
        return "absent", None, None
    ranked = [chunks[i] for i in world.ranking]
    holding = next((r for r, c in enumerate(ranked, 1) if counts(c) and unit in c.text), None)
    if holding is not None and holding <= world.k:
        return "hit", holding, holding
    if any(counts(c) and unit in c.text for c in chunks):
        return "ranked_out", None, holding
    return "split", None, None


@settings(max_examples=300)
@given(worlds())
def test_verdicts_rank_and_holding_rank_equal_a_literal_scan(world):
    suite = build(world)
    finder = suite.finder(Matcher("exact"))
    case = Case("c", "q", (world.needle,), world.span)
    top = suite.search("q", world.k)
    result = judge(case, top, finder, gold_file="g", k=world.k, docs=world.docs)
    depth = len(suite.chunks)
    if result.verdict == "ranked_out":
        result = deepen(
            result, case, suite.search("q", depth), finder, depth=depth, docs=world.docs
        )
    verdict, rank, holding = oracle(world, suite.chunks)
    event(f"{verdict}, pinned={world.docs is not None}, span={world.span is not None}")
    assert (result.verdict, result.rank) == (verdict, rank)
    assert result.holding_rank == holding
    assert result.span_split == (verdict == "split")
