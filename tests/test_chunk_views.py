"""A suite's chunk views: the same preview and id as ChunkView.of and chunk_id, made once a chunk."""

from __future__ import annotations

from pytest_chunkrecall.chunking.chunk import Chunk
from pytest_chunkrecall.evaluation.results import ChunkView, chunk_id
from pytest_chunkrecall.evaluation.views import ChunkViews

TEXT = "The refund window is 30 days from delivery. " * 5


def chunks() -> list[Chunk]:
    return [Chunk(TEXT[i : i + 90], "docs/faq.md", n, i, i + 90) for n, i in enumerate((0, 60))]


def test_a_view_is_what_chunk_view_of_gives_and_its_strings_are_shared():
    mine = chunks()
    views = ChunkViews(mine)
    first = views.view(mine[1], rank=2, length=len)
    again = views.view(mine[1], rank=4)
    assert first == ChunkView.of(mine[1], rank=2, length=len)
    assert again == ChunkView.of(mine[1], rank=4)
    assert first.preview is again.preview
    assert views.id(mine[1]) == chunk_id(mine[1]) == "docs/faq.md#1"
    assert views.id(mine[1]) is views.id(mine[1])


def test_a_chunk_of_another_list_is_shown_as_it_is():
    views = ChunkViews(chunks())
    other = Chunk("Shipping takes 5 days.", "docs/ship.md", 1, 0, 22)
    assert views.view(other) == ChunkView.of(other)
    assert views.id(other) == "docs/ship.md#1"
    assert views.id(Chunk("x", "docs/ship.md", 7)) == "docs/ship.md#7"
