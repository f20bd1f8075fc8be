"""Matching at the edges: a number is matched whole, never as the end of a longer one.

A pattern (a needle, a span, a ``{from, to}`` end) whose first or last character is
a digit never matches next to another digit: ``30 days`` is not in ``130 days``, and
``March 2028`` is not in ``March 20282``, since ``30`` inside ``130`` is another fact.
Letters keep substring matching (``refund`` is in ``refunds``): a plural is the same
fact. Every match mode applies it, on both sides in its own match space.

The common case costs little more: a pattern that neither starts nor ends with a
digit is matched by ``in`` alone, and one that does is checked at its edges where
``str.find`` finds it, two characters of the text read at each place.
"""

from __future__ import annotations


def whole_at(text: str, pattern: str, at: int) -> bool:
    """Whether ``pattern``, which occurs in ``text`` at offset ``at``, has no digit of
    ``text`` beside a digit of its own at either edge."""
    # the text's neighbours first: they are seldom digits, and then nothing more is read
    if at > 0 and text[at - 1].isdecimal() and pattern[:1].isdecimal():
        return False
    end = at + len(pattern)
    return not (end < len(text) and text[end].isdecimal() and pattern[-1:].isdecimal())


def inside_number(text: str, at: int) -> bool:
    """Whether offset ``at`` of ``text`` falls between two digits: a cut there parts a
    number, and a pattern ending or starting at it would be whole on one side only."""
    return 0 < at < len(text) and text[at - 1].isdecimal() and text[at].isdecimal()


def find(text: str, pattern: str, start: int = 0, end: int | None = None) -> int:
    """The first offset in ``text[start:end]`` where ``pattern`` occurs whole, else -1.

    The edges are checked against ``text`` itself, beyond ``start`` and ``end`` too:
    a digit just outside a passage still makes the number another one.
    """
    at = text.find(pattern, start, end)
    while at >= 0 and not whole_at(text, pattern, at):
        at = text.find(pattern, at + 1, end)
    return at


def holds(text: str, pattern: str) -> bool:
    """Whether ``text`` holds ``pattern`` whole: ``pattern in text``, with its edges checked
    only when it starts or ends with a digit (the hit path of every other needle)."""
    if pattern not in text:
        return False
    if not (pattern[:1].isdecimal() or pattern[-1:].isdecimal()):
        return True
    return find(text, pattern) >= 0


def with_whole_numbers(text: str, start: int, end: int) -> str:
    """``text[start:end]`` grown over the digits on either side, so that a number cut at
    an edge of a passage (``30`` of ``130``) is read as the whole number it is."""
    if start < end and text[start].isdecimal():
        while start > 0 and text[start - 1].isdecimal():
            start -= 1
    if start < end and text[end - 1].isdecimal():
        while end < len(text) and text[end].isdecimal():
            end += 1
    return text[start:end]
