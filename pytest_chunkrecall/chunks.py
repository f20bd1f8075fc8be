"""The chunk value, and placing a chunker's output back into its document."""

from __future__ import annotations

import re
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
    offsets of ``text`` in the document (which may differ from ``text`` in its
    whitespace, where the chunker joined lines anew), or ``None`` when they cannot
    be known (the chunker rewrote the text and gave no offsets).
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
) -> list[tuple[int, int] | None]:
    """Find where each ``(text, start_hint)`` piece sits in ``document``: its ``(start, end)``.

    A hint is trusted when the document really holds the text there (and, if it
    points back before the previous chunk, the text does not repeat after it). Otherwise
    the text is tried where the last stride between chunks would put it (or,
    for the second chunk, where the chunker's configured ``overlap`` would), then
    looked for moving forward from the previous chunk's start (so overlapping
    chunks are found), first nearby, then in the rest of the document. A piece
    the document does not hold verbatim is looked for again with any run of
    whitespace standing for any other (a splitter that joins lines with one
    newline where the document had a blank line); there ``end - start`` differs
    from the text's length. A piece found neither way gets ``None``. Text that
    repeats in the document is placed at its first occurrence after the
    previous chunk.
    """
    found: list[tuple[int, int] | None] = []
    cursor = 0
    full_searches_failed = 0
    previous: tuple[int, int] | None = None
    stride: int | None = None
    for text, hint in pieces:
        predicted = None
        if previous is not None and stride:
            predicted = previous[0] + stride
        elif previous is not None and overlap is not None:
            predicted = previous[1] - overlap
        if _trusted(document, text, hint, cursor):
            assert hint is not None
            where: tuple[int, int] | None = (hint, hint + len(text))
        elif predicted is not None and document.startswith(text, predicted):
            where = (predicted, predicted + len(text))
        else:
            where = _search(document, text, cursor, full=full_searches_failed < _MAX_FULL_SEARCHES)
            if where is None and full_searches_failed < _MAX_FULL_SEARCHES:
                full_searches_failed += 1
        if where is not None:
            cursor = where[0] + 1 if text else where[0]
            stride = where[0] - previous[0] if previous is not None else None
            previous = where
        found.append(where)
    return found


def _trusted(document: str, text: str, hint: int | None, cursor: int) -> bool:
    """Whether the chunker's own start offset ``hint`` for ``text`` is right."""
    if hint is None or not document.startswith(text, hint):
        return False
    # A hint back before the previous chunk, to text that repeats after it, is a
    # library that lost count (LangChain's start_index after a chunk it could
    # not find searches again from near the top): the repetition ahead is meant.
    return hint >= cursor or document.find(text, cursor) < 0


def _search(document: str, text: str, cursor: int, *, full: bool) -> tuple[int, int] | None:
    """``text`` from ``cursor`` on: verbatim, then up to whitespace; nearby, then (if ``full``) anywhere."""
    window = cursor + len(text) + _NEAR
    start = document.find(text, cursor, window)
    if start < 0 and full:
        start = document.find(text, cursor)
    if start >= 0:
        return start, start + len(text)
    words = text.split()
    if not words or words == [text]:
        return None  # nothing but whitespace, or no whitespace that could differ
    loose = re.compile(r"\s+".join(map(re.escape, words)))
    match = loose.search(document, cursor, window + len(text)) or (
        loose.search(document, cursor) if full else None
    )
    return match.span() if match else None
