"""Cutting help articles into passages: character windows that end between words.

Windows are measured in characters. Each window ends at the last space before
its size limit, so no word is cut in half; the next window starts ``overlap``
characters before that end, moved back to the start of the word there. So a
stretch of text no longer than ``overlap`` that one window edge cuts is whole
in the next window (while ``overlap`` stays under about a third of ``size``).
With ``overlap=0`` windows simply follow one another, and a fact that crosses
a window edge is in no single passage.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

SIZE = 320
OVERLAP = 64
# How far back from the size limit a window may end to reach a space. A word
# longer than this (a URL, say) is cut where the limit falls.
_LONGEST_WORD = 40


@dataclass(frozen=True)
class Passage:
    """A retrievable passage: its text, where it starts in its article, and the article."""

    text: str
    start_index: int
    doc: str = ""

    @property
    def end_index(self) -> int:
        return self.start_index + len(self.text)


def chunk(text: str, *, size: int = SIZE, overlap: int = OVERLAP) -> list[Passage]:
    """Cut ``text`` into windows of at most ``size`` characters sharing ``overlap`` characters.

    Every passage is ``text[p.start_index : p.end_index]``, without leading or
    trailing whitespace, and every word of ``text`` is in at least one passage.
    """
    if isinstance(size, bool) or not isinstance(size, int) or size < 2 * _LONGEST_WORD:
        raise ValueError(
            f"size must be a whole number of at least {2 * _LONGEST_WORD}, not {size!r}"
        )
    if isinstance(overlap, bool) or not isinstance(overlap, int) or not 0 <= overlap < size // 2:
        raise ValueError(
            f"overlap must be a whole number from 0 to {size // 2 - 1}, not {overlap!r}"
        )
    return [Passage(text[start:end], start) for start, end in _windows(text, size, overlap)]


def load_passages(
    folder: Path, *, size: int = SIZE, overlap: int = OVERLAP, pattern: str = "*.md"
) -> list[Passage]:
    """The passages of every article in ``folder``, article by article in name order."""
    passages = []
    for path in sorted(folder.glob(pattern)):
        text = path.read_text(encoding="utf-8")
        passages += [replace(p, doc=path.name) for p in chunk(text, size=size, overlap=overlap)]
    return passages


def _windows(text: str, size: int, overlap: int) -> Iterator[tuple[int, int]]:
    start = _skip_space(text, 0)
    while start < len(text):
        end = _window_end(text, start, size)
        yield start, _trim_end(text, start, end)
        if end >= len(text):
            return
        start = _skip_space(text, _next_start(text, start, end, overlap))


def _window_end(text: str, start: int, size: int) -> int:
    limit = start + size
    if limit >= len(text) or text[limit].isspace():
        return min(limit, len(text))
    for end in range(limit, max(start, limit - _LONGEST_WORD), -1):
        if text[end - 1].isspace():
            return end
    return limit


def _next_start(text: str, start: int, end: int, overlap: int) -> int:
    if overlap == 0:
        return end
    at = end - overlap
    # Back to the start of the word the overlap begins in, so the shared text
    # is never shorter than asked for.
    while at > start + 1 and not text[at - 1].isspace():
        at -= 1
    return at


def _skip_space(text: str, at: int) -> int:
    while at < len(text) and text[at].isspace():
        at += 1
    return at


def _trim_end(text: str, start: int, end: int) -> int:
    while end > start and text[end - 1].isspace():
        end -= 1
    return end
