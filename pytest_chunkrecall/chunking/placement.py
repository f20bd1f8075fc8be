"""Placing a chunker's output back into its document: the offsets of each chunk."""

from __future__ import annotations

from collections.abc import Iterable

from ..text.folding import Folded, fold, fold_text

# How far past the previous chunk's start a chunk is looked for before the
# whole rest of the document is searched; keeps placement linear in practice.
_NEAR = 4096


# After this many chunks of one document could not be found anywhere, the
# chunker evidently rewrites text: stop searching whole documents for it.
_MAX_FULL_SEARCHES = 3


def place(
    document: str, pieces: Iterable[tuple[str, int | None]], *, overlap: int | None = None
) -> list[tuple[int, int] | None]:
    """Find where each ``(text, start_hint)`` piece sits in ``document``: its ``(start, end)``.

    A hint is trusted when the document really holds the text there. Otherwise
    the text is tried where the last stride between chunks would put it (or,
    for the second chunk, where the chunker's configured ``overlap`` would), then
    looked for moving forward from the previous chunk's start (so overlapping
    chunks are found, and a child at its parent's start: a chunk nested in the
    previous one), first nearby, then in the rest of the document, then before
    the previous chunk (the children of a hierarchy given after all its
    parents); each time verbatim, and as the normalized match mode sees text (a
    splitter that joins lines with one newline where the document has a blank
    line), where ``end - start`` may differ from the text's length. The verbatim
    match is taken when it follows on from the previous chunk, else the earlier
    of the two. A piece found neither way gets ``None``. Text that repeats in the
    document is placed at its first occurrence from the previous chunk's start
    on (at that start only when it is nested in the previous chunk).
    """
    placer = _Placer(document, overlap)
    return [placer.place(text, hint) for text, hint in pieces]


class _Placer:
    """Places one document's chunks in order, each by the first strategy that finds it:
    the chunker's own start, where the stride so far predicts it, forward from the
    previous chunk, before the previous chunk, and last a hint that looked doubtful."""

    def __init__(self, document: str, overlap: int | None) -> None:
        self.document = document
        self.overlap = overlap
        self.finder = _Finder(document)
        self.cursor = 0  # where the search for the next chunk starts
        self.previous: tuple[int, int] | None = None
        self.previous_hinted = True  # the previous chunk sits where its hint said
        self.stride: int | None = None  # from the chunk before the previous one to it
        self.full_searches_failed = 0

    def place(self, text: str, hint: int | None) -> tuple[int, int] | None:
        """Where ``text`` sits, after the chunks placed so far; ``None`` if nowhere."""
        held = hint is not None and self.document.startswith(text, hint)
        # A hint back before the previous chunk, right after a chunk placed
        # without its own hint, is a library that lost count (LangChain's
        # start_index after a chunk it could not find searches again from near
        # the top, and finds a passage that repeats): it is the last resort.
        doubtful = held and hint is not None and hint < self.cursor and not self.previous_hinted
        where = (
            (self._at_hint(text, hint) if held and not doubtful else None)
            or self._at_prediction(text)
            or self._searched(text, doubtful=doubtful)
            or (self._at_hint(text, hint) if doubtful else None)
        )
        self._advance(where, text, hint)
        return where

    def _at_hint(self, text: str, hint: int | None) -> tuple[int, int]:
        """The chunker's own start offset, already checked to hold ``text``."""
        assert hint is not None
        return hint, hint + len(text)

    def _at_prediction(self, text: str) -> tuple[int, int] | None:
        """Where the last stride between chunks puts ``text``, or for the second chunk,
        the configured ``overlap`` back from the first one's end."""
        if self.previous is None:
            return None
        if self.stride:
            predicted = self.previous[0] + self.stride
        elif self.overlap is not None:
            predicted = self.previous[1] - self.overlap
        else:
            return None
        # startswith at a negative offset would look at the document's end
        if predicted < 0 or not self.document.startswith(text, predicted):
            return None
        return predicted, predicted + len(text)

    def _searched(self, text: str, *, doubtful: bool) -> tuple[int, int] | None:
        """``text`` looked for forward from the previous chunk, then before it; once a few
        chunks were found nowhere, the chunker rewrites text and only nearby is looked at."""
        full = self.full_searches_failed < _MAX_FULL_SEARCHES
        where = _after(self.finder, text, self.previous, self.cursor, full=full)
        if where is None and full and not doubtful:
            where = self._before_previous(text)
        if where is None and full:
            self.full_searches_failed += 1
        return where

    def _before_previous(self, text: str) -> tuple[int, int] | None:
        """``text`` before the previous chunk's start: the next level of a hierarchy given
        level by level (all parents, then all children)."""
        if self.previous is None:
            return None
        return self.finder.search(text, 0, 0, full=True, end=self.previous[0] + len(text))

    def _advance(self, where: tuple[int, int] | None, text: str, hint: int | None) -> None:
        self.previous_hinted = where is not None and where[0] == hint
        if where is None:
            return
        self.cursor = where[0] + 1 if text else where[0]
        self.stride = where[0] - self.previous[0] if self.previous is not None else None
        self.previous = where


def _after(
    finder: _Finder, text: str, previous: tuple[int, int] | None, cursor: int, *, full: bool
) -> tuple[int, int] | None:
    """``text`` from the previous chunk's start on, at that start only when nested in that chunk.

    A child of a parent-and-children chunker shares its parent's start; any
    other chunk there is the same text again (a repeat, or periodic text), which
    an ordinary chunker emits where it next occurs, so that is looked for first.
    """
    if previous is None:
        return finder.search(text, cursor, 0, full=full)
    low, reached = previous
    first = finder.search(text, low, reached, full=full)
    if first is None or first[0] != low or first[1] < reached:
        return first
    # Not a child: look further on, but only nearby for the previous chunk's
    # very text (a leaf as long as its parent), which would otherwise cost a
    # search of the whole document for each such leaf.
    again = finder.search(text, cursor, reached, full=full and first[1] != reached)
    return again or first


class _Finder:
    """Looks for chunk texts in one document, verbatim or normalized (folded once, when needed)."""

    def __init__(self, document: str) -> None:
        self.document = document
        self._folded: Folded | None = None

    def search(
        self, text: str, cursor: int, reached: int, *, full: bool, end: int | None = None
    ) -> tuple[int, int] | None:
        """``text`` from ``cursor`` on: nearby, then (if ``full``) anywhere before ``end``.

        Nearby is within reach of ``reached``, where the previous chunk ends. A
        verbatim match that leaves text no chunk holds after the previous chunk
        gives way to an earlier normalized one: the chunk is more likely there.
        """
        last = len(self.document) if end is None else min(end, len(self.document))
        near = min(max(cursor, reached) + len(text) + _NEAR, last)
        for limit in (near, last) if full else (near,):
            start = self.document.find(text, cursor, limit)
            if start >= 0 and not self.document[reached:start].strip():
                return start, start + len(text)
            where = self._normalized(text, cursor, limit)
            if where is not None and (start < 0 or where[0] < start):
                return where
            if start >= 0:
                return start, start + len(text)
        return None

    def _normalized(self, text: str, cursor: int, limit: int) -> tuple[int, int] | None:
        wanted = fold_text(text)
        if not wanted:
            return None
        if self._folded is None:
            self._folded = fold(self.document)
        folded = self._folded
        # A limit inside a whitespace run that folding shortened maps to the
        # run's one space, which the bound must still admit.
        high = folded.folded_start(limit) + 1
        at = folded.text.find(wanted, folded.folded_start(cursor), high)
        while at >= 0:
            start, end = folded.original_start(at), folded.original_end(at + len(wanted))
            # Whole characters of the document from the cursor on: not part of
            # one that folding merged (e + accent) or expanded (ß to ss).
            if (
                start >= cursor
                and folded.folded_start(start) == at
                and folded.folded_start(end) == at + len(wanted)
            ):
                return start, end
            at = folded.text.find(wanted, at + 1, high)
        return None
