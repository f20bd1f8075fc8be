"""Folding text for matching: NFKC, casefolded, whitespace runs collapsed.

Folding a document keeps a map back to the original offsets, so a span
found in folded text is placed exactly in the document its chunks index.
"""

from __future__ import annotations

import re
import unicodedata
from array import array
from bisect import bisect_right
from dataclasses import dataclass

_WHITESPACE = re.compile(r"\s+")
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


@dataclass(frozen=True)
class Folded:
    """Text in match space, with a map from its offsets back to the original's.

    The map is stored only where it is not a plain shift: ``_at[i]`` is the
    folded offset where an irregular segment starts, ``_orig[i]`` its original
    offset, and ``_size[i]``/``_orig_size[i]`` its lengths on each side.
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
        i = bisect_right(self._at, pos - 1) - 1
        if i >= 0 and pos - 1 < self._at[i] + self._size[i]:
            return self._orig[i] + self._orig_size[i]
        return self.original_start(pos - 1) + 1


def _across(
    pos: int, starts: array[int], sizes: array[int], to_starts: array[int], to_sizes: array[int]
) -> int:
    """``pos`` on one side of the map (segments ``starts``/``sizes``) on the other side."""
    i = bisect_right(starts, pos) - 1
    if i < 0:
        return pos
    seg_end = starts[i] + sizes[i]
    if pos < seg_end:
        return to_starts[i]
    return to_starts[i] + to_sizes[i] + (pos - seg_end)


def fold(text: str) -> Folded:
    """Normalize ``text`` (NFKC, casefold, whitespace collapsed), keeping the offset map."""
    at, orig, size, orig_size = array("q"), array("q"), array("q"), array("q")
    if text.isascii():
        # NFKC is the identity and casefold is lower() on ASCII: only
        # whitespace runs change length. (Visiting only those, not every
        # space between words, makes folding a large corpus several times faster.)
        for m in _WHITESPACE_RUN.finditer(text):
            _segment(
                at,
                orig,
                size,
                orig_size,
                m.start() - _shift(at, orig, size, orig_size),
                m.start(),
                1,
                m.end() - m.start(),
            )
        return Folded(_WHITESPACE.sub(" ", text).lower(), at, orig, size, orig_size)
    parts: list[str] = []
    length = 0
    for m in _PIECES.finditer(text):
        piece = m.group()
        if m.lastindex == 1:
            out = " "
        elif m.lastindex == 2:
            out = piece.lower()
        else:
            out = _WHITESPACE.sub(" ", unicodedata.normalize("NFKC", piece).casefold())
        if len(out) != len(piece) or (m.lastindex == 3 and len(piece) > 1):
            _segment(at, orig, size, orig_size, length, m.start(), len(out), len(piece))
        parts.append(out)
        length += len(out)
    return Folded("".join(parts), at, orig, size, orig_size)


def fold_text(text: str) -> str:
    """Just the folded text, stripped: how needles and spans are normalized."""
    if text.isascii():
        return _WHITESPACE.sub(" ", text).lower().strip()
    return _WHITESPACE.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


def _shift(at: array[int], orig: array[int], size: array[int], orig_size: array[int]) -> int:
    """How far the original runs ahead of the folded text after the last segment."""
    if not at:
        return 0
    return (orig[-1] + orig_size[-1]) - (at[-1] + size[-1])


def _segment(
    at: array[int], orig: array[int], size: array[int], orig_size: array[int],
    folded_pos: int, orig_pos: int, folded_len: int, orig_len: int,
) -> None:  # fmt: skip
    at.append(folded_pos)
    orig.append(orig_pos)
    size.append(folded_len)
    orig_size.append(orig_len)
