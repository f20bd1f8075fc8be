"""How a suite's chunks are shown in results: each chunk's preview and id, made once.

Every case's result names its top k chunks (their previews, their ids). The
questions of a suite retrieve the same chunks again and again, so each chunk's
strings are made the first time it is shown, and reused after.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..chunking.chunk import Chunk
from .results import ChunkView, chunk_id, preview


class ChunkViews:
    """The previews and ids of ``chunks``, each made on first use."""

    def __init__(self, chunks: Sequence[Chunk]) -> None:
        self.chunks = chunks
        self._previews: list[str | None] = [None] * len(chunks)
        self._ids: list[str | None] = [None] * len(chunks)

    def view(
        self, chunk: Chunk, *, rank: int | None = None, length: Callable[[str], int] | None = None
    ) -> ChunkView:
        """:meth:`ChunkView.of` ``chunk``, with its preview made once."""
        if not self._ours(chunk):
            return ChunkView.of(chunk, rank=rank, length=length)
        shown = self._previews[chunk.index]
        if shown is None:
            shown = self._previews[chunk.index] = preview(chunk.text)
        return ChunkView.of(chunk, rank=rank, length=length, shown=shown)

    def id(self, chunk: Chunk) -> str:
        """:func:`chunk_id` of ``chunk``, made once."""
        if not self._ours(chunk):
            return chunk_id(chunk)
        found = self._ids[chunk.index]
        if found is None:
            found = self._ids[chunk.index] = chunk_id(chunk)
        return found

    def _ours(self, chunk: Chunk) -> bool:
        # a chunk of another list (a sweep's setting) is shown as it is, not cached
        return 0 <= chunk.index < len(self.chunks) and self.chunks[chunk.index] is chunk
