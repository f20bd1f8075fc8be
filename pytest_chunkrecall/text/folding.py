"""Folding text for matching: NFKC, casefolded, whitespace runs collapsed.

Folding a document keeps a map back to the original offsets, so a span
found in folded text is placed exactly in the document its chunks index.

Folding goes piece by piece, and a whitespace run is a piece of its own: a
passage that starts and ends with whole runs folds as it does inside its text.
So where a retrieved chunk holds a span is found by folding the chunk's own
passage (:func:`fold_passage`), with no folded copy of the corpus.
"""

from __future__ import annotations

import re
import unicodedata
from array import array
from bisect import bisect_right
from dataclasses import dataclass

_WHITESPACE = re.compile(r"\s+")
_SPACE = re.compile(r"\s")
_WHITESPACE_RUN = re.compile(r"\s\s+")  # the runs that folding shortens
# Marks that NFKC composes with the character before them: combining diacritics,
# kana voicing marks (also half-width), and the vowels and finals of conjoining Hangul.
_COMBINING = (
    "\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f"
    "\u3099\u309a\uff9e\uff9f\u1160-\u11ff\ud7b0-\ud7ff"
)
# Whitespace runs, runs of printable ASCII (folded with str.lower), and any
# other character together with the combining marks that follow it. An ASCII
# letter that carries marks ("e" + U+0301) belongs with them: NFKC composes
# the pair, as it does when a needle is folded whole.
_PIECES = re.compile(rf"(\s+)|((?:[!-~](?![{_COMBINING}]))+)|(.[{_COMBINING}]*)", re.S)


# The ASCII whitespace characters (those str.isspace and \s agree on), each folded to a space.
_ASCII_SPACES = str.maketrans(dict.fromkeys("\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f", " "))


@dataclass(frozen=True)
class Folded:
    """Text in match space, with a map from its offsets back to the original's.

    The map holds only the segments where folding changed the text (a whitespace
    run made one space, a letter and its marks composed, ß made ss); between
    them offsets move by a constant shift, so a position is mapped by bisecting
    the segments. ``_at[n]`` is the folded offset where segment ``n`` starts,
    ``_orig[n]`` its original offset, ``_size[n]``/``_orig_size[n]`` its lengths
    on each side.
    """

    text: str
    _at: array[int]
    _orig: array[int]
    _size: array[int]
    _orig_size: array[int]

    def original_start(self, pos: int) -> int:
        """Original offset of the folded character at ``pos``."""
        return _across(pos, self._at, self._size, self._orig, self._orig_size)

    def folded_start(self, pos: int) -> int:
        """Folded offset of the original character at ``pos`` (its segment's, inside one)."""
        return _across(pos, self._orig, self._orig_size, self._at, self._size)

    def original_end(self, pos: int) -> int:
        """Original offset just past the folded character at ``pos - 1``."""
        if pos <= 0:
            return 0
        segment = bisect_right(self._at, pos - 1) - 1
        if segment >= 0 and pos - 1 < self._at[segment] + self._size[segment]:
            return self._orig[segment] + self._orig_size[segment]
        return self.original_start(pos - 1) + 1


def _across(
    pos: int, starts: array[int], sizes: array[int], to_starts: array[int], to_sizes: array[int]
) -> int:
    """``pos`` on one side of the map (segments ``starts``/``sizes``) on the other side."""
    segment = bisect_right(starts, pos) - 1
    if segment < 0:
        return pos
    segment_end = starts[segment] + sizes[segment]
    if pos < segment_end:
        return to_starts[segment]
    return to_starts[segment] + to_sizes[segment] + (pos - segment_end)


@dataclass(frozen=True)
class FoldedPassage:
    """The passage of a text from offset ``base`` on, in match space, mapped to and from
    the whole text's offsets (its own offsets in match space start at 0)."""

    base: int
    folded: Folded

    @property
    def text(self) -> str:
        return self.folded.text

    def original_start(self, pos: int) -> int:
        """Offset in the whole text of the folded character at ``pos``."""
        return self.base + self.folded.original_start(pos)

    def original_end(self, pos: int) -> int:
        """Offset in the whole text just past the folded character at ``pos - 1``."""
        return self.base + self.folded.original_end(pos)

    def folded_start(self, pos: int) -> int:
        """Folded offset of the whole text's character at ``pos`` (at or after ``base``)."""
        return self.folded.folded_start(pos - self.base)


def widened(text: str, start: int, end: int) -> tuple[int, int]:
    """``[start, end)`` of ``text`` widened to the whitespace runs on either side, so that
    the passage folds as it does inside the whole text: its first piece is the run before
    ``start`` (or starts the text), its last is the run after ``end`` (or ends the text)."""
    after = _WHITESPACE.search(text, end)
    return _run_before(text, start), after.end() if after is not None else len(text)


def fold_passage(text: str, start: int, end: int) -> FoldedPassage:
    """``text[start:end]`` in match space, mapped to ``text``'s offsets; ``[start, end)``
    as :func:`widened` gives it, for the passage to fold as it does inside ``text``."""
    return FoldedPassage(start, fold(text[start:end]))


def _run_before(text: str, pos: int) -> int:
    """Where the last whitespace run at or before ``pos`` starts, else 0."""
    reach = 64
    while True:
        low = max(0, pos - reach)
        spaces = [space.start() for space in _SPACE.finditer(text, low, pos + 1)]
        if spaces:
            start = spaces[-1]
            while start > 0 and _SPACE.match(text, start - 1):
                start -= 1
            return start
        if low == 0:
            return 0
        reach *= 8


class _Segments:
    """The offset map as it is built: the segments where folding changed the text."""

    def __init__(self, text: str) -> None:
        # 4 bytes an offset, rather than 8, wherever offsets fit
        typecode = "i" if len(text) < 2**31 else "q"
        self.at, self.orig = array(typecode), array(typecode)
        self.size, self.orig_size = array(typecode), array(typecode)

    def add(self, folded_pos: int, orig_pos: int, folded_len: int, orig_len: int) -> None:
        self.at.append(folded_pos)
        self.orig.append(orig_pos)
        self.size.append(folded_len)
        self.orig_size.append(orig_len)

    @property
    def shift(self) -> int:
        """How far the original runs ahead of the folded text after the last segment."""
        if not self.at:
            return 0
        return (self.orig[-1] + self.orig_size[-1]) - (self.at[-1] + self.size[-1])

    def folded(self, text: str) -> Folded:
        return Folded(text, self.at, self.orig, self.size, self.orig_size)


def fold(text: str) -> Folded:
    """Normalize ``text`` (NFKC, casefold, whitespace collapsed), keeping the offset map."""
    segments = _Segments(text)
    if text.isascii():
        # NFKC is the identity and casefold is lower() on ASCII: only
        # whitespace runs change length. Only those are visited (not every
        # space between words); the single whitespace characters left are
        # spaces after a translation, done at C speed.
        for run in _WHITESPACE_RUN.finditer(text):
            start = run.start()
            segments.add(start - segments.shift, start, 1, run.end() - start)
        collapsed = _WHITESPACE_RUN.sub(" ", text).translate(_ASCII_SPACES).lower()
        return segments.folded(collapsed)
    parts: list[str] = []
    length = 0
    for match in _PIECES.finditer(text):
        piece = match.group()
        if match.lastindex == 1:
            out = " "
        elif match.lastindex == 2:
            out = piece.lower()
        else:
            out = _WHITESPACE.sub(" ", unicodedata.normalize("NFKC", piece).casefold())
        if len(out) != len(piece) or (match.lastindex == 3 and len(piece) > 1):
            segments.add(length, match.start(), len(out), len(piece))
        parts.append(out)
        length += len(out)
    return segments.folded("".join(parts))


def fold_text(text: str) -> str:
    """Just the folded text, stripped: how needles and spans are normalized."""
    if text.isascii():
        return " ".join(text.lower().split())  # str.split and \s agree on ASCII whitespace
    return _WHITESPACE.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()
