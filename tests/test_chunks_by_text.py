"""Results given as text are matched to their chunk through a map made only when one comes."""

from __future__ import annotations

from collections.abc import Iterator

from pytest_chunkrecall.chunking.chunk import Chunk
from pytest_chunkrecall.evaluation.suite import ChunksByText, Component, Suite
from pytest_chunkrecall.retrievers import bm25

CHUNKS = (
    Chunk("refund window is 30 days", "docs/a.md", 0, 0, 24),
    Chunk("express shipping", "docs/a.md", 1, 24, 40),
    Chunk("refund window is 30 days", "docs/b.md", 2, 0, 24),
)


class Watched(tuple[Chunk, ...]):
    """The chunk list, counting how often it is read through."""

    walks = 0

    def __iter__(self) -> Iterator[Chunk]:
        Watched.walks += 1
        return super().__iter__()


def test_each_text_maps_to_its_first_chunk() -> None:
    by_text = ChunksByText(CHUNKS)
    assert by_text.get("refund window is 30 days") == 0
    assert by_text.get("express shipping") == 1
    assert by_text.get("not a chunk") is None
    assert dict(by_text) == {"refund window is 30 days": 0, "express shipping": 1}


def test_the_map_is_made_at_the_first_lookup_and_once() -> None:
    Watched.walks = 0
    by_text = ChunksByText(Watched(CHUNKS))
    assert Watched.walks == 0
    assert by_text.get("express shipping") == 1
    assert by_text.get("refund window is 30 days") == 0
    assert Watched.walks == 1


def test_a_retriever_that_returns_text_gets_the_first_chunk_with_that_text() -> None:
    def by_text(chunks: list[Chunk]):  # type: ignore[no-untyped-def]
        return lambda question, k: [chunks[1].text, chunks[2].text][:k]

    suite = Suite(
        (),
        CHUNKS,
        Component.of("fixed", bm25),
        Component.of("texts", by_text),
    )
    found = suite.search("refund", 3)
    assert [result.chunk.index if result.chunk else None for result in found] == [1, 0]
