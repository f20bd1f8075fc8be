"""The chunk value, and placing a chunker's output back into its document."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

# How far past the previous chunk's start a chunk is looked for before the
# whole rest of the document is searched; keeps placement linear in practice.
_NEAR = 4096
# After this many chunks of one document could not be found anywhere, the
# chunker evidently rewrites text: stop searching whole documents for it.
_MAX_FULL_SEARCHES = 3


@dataclass(frozen=True)
class Chunk:
    """One retrievable piece of the corpus.

    ``doc`` is the document id (its path relative to the rootdir), ``index`` the
    position in the suite's chunk list, and ``start``/``end`` the character
    offsets of ``text`` in the document, or ``None`` when they cannot be known
    (the chunker rewrote the text and gave no offsets).
    """

    text: str
    doc: str
    index: int
    start: int | None = None
    end: int | None = None

    @property
    def placed(self) -> bool:
        """Whether the offsets of this chunk in its document are known."""
        return self.start is not None


def place(
    document: str, pieces: Iterable[tuple[str, int | None]], *, overlap: int | None = None
) -> list[int | None]:
    """Find where each ``(text, start_hint)`` piece sits in ``document``.

    A hint is trusted when the document really holds the text there. Otherwise
    the text is tried where the last stride between chunks would put it (or,
    for the second chunk, where the chunker's configured ``overlap`` would), then
    looked for moving forward from the previous chunk's start (so overlapping
    chunks are found), first nearby, then in the rest of the document. A piece
    that is not in the document verbatim gets ``None``. Text that repeats in the
    document is placed at its first occurrence after the previous chunk.
    """
    starts: list[int | None] = []
    cursor = 0
    full_searches_failed = 0
    previous: int | None = None
    previous_end: int | None = None
    stride: int | None = None
    for text, hint in pieces:
        start: int | None = None
        predicted = None
        if previous is not None and stride:
            predicted = previous + stride
        elif previous_end is not None and overlap is not None:
            predicted = previous_end - overlap
        if hint is not None and document.startswith(text, hint):
            start = hint
        elif predicted is not None and document.startswith(text, predicted):
            start = predicted
        else:
            near = document.find(text, cursor, cursor + len(text) + _NEAR)
            if near >= 0:
                start = near
            elif full_searches_failed < _MAX_FULL_SEARCHES:
                far = document.find(text, cursor)
                if far < 0:
                    full_searches_failed += 1
                else:
                    start = far
        if start is not None:
            cursor = start + 1 if text else start
            stride = start - previous if previous is not None else None
            previous, previous_end = start, start + len(text)
        starts.append(start)
    return starts
