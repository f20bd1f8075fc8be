"""Locating an answer in a corpus: where it occurs, the sentence around it, or the closest text.

Answers are found the way the plugin's ``normalized`` match finds needles
(:func:`matching.fold`: NFKC, casefold, whitespace collapsed), so an answer
located here is one the plugin finds; offsets are mapped back to the document
as stored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from rapidfuzz import fuzz

from ..text.folding import Folded, fold, fold_text

# A sentence ends at . ! or ? (with closing quotes or brackets) followed by
# whitespace and a character that can start a sentence; a paragraph or a
# Markdown block (heading, list item, table row, quote) starts a new one too,
# after its marker.
_SENTENCE_END = re.compile(
    "[.!?][\"'\u201d\u2019)\\]]*\\s+(?=[\"'\u201c\u2018(\\[]?[^\\s\\w]*[A-Z0-9\u00c0-\u00de])"
)
_MARKER = r"(?:#+[ \t]+|[-*+][ \t]+|\d+[.)][ \t]+|>[ \t]*)"
_BLOCK_START = re.compile(rf"(?:\A|\n)[ \t]*(?:\n\s*)?{_MARKER}|\n[ \t]*\n\s*|\n(?=[ \t]*\|)")
_ABBREVIATION = re.compile(
    r"(?:\b[A-Za-z]|\b(?:Mr|Mrs|Ms|Dr|Prof|St|Jr|Sr|vs|etc|No|Fig|Inc|Ltd|Co|Corp|Gen|Col|Lt|Sgt|Rev|Mt|approx|ca|e\.g|i\.e))\.$"
)


_WORD = re.compile(r"\w{3,}")
_STOP = frozenset(
    (
        "the",
        "and",
        "for",
        "are",
        "was",
        "were",
        "what",
        "which",
        "who",
        "whom",
        "whose",
        "how",
        "why",
        "when",
        "where",
        "that",
        "this",
        "these",
        "those",
        "with",
        "from",
        "into",
        "does",
        "did",
        "has",
        "have",
        "had",
        "its",
        "their",
        "there",
        "than",
        "then",
        "they",
        "them",
        "his",
        "her",
        "our",
        "your",
        "about",
        "according",
        "mentioned",
        "described",
        "discussed",
    )
)
# The words of a question and of an answer's sentence are compared by their
# first letters, so that "return" meets "returned" and "ship" "shipping".
_STEM = 4
# How many content words an answer's sentence must share with the question
# for the answer to be taken as the one the question asks for.
SHARED_WORDS = 1


def content_words(text: str) -> set[str]:
    """The words of ``text`` that carry content: three letters or more, no stop words, folded."""
    return {word for word in _WORD.findall(fold_text(text)) if word not in _STOP}


def shares_content(question: str, passage: str) -> bool:
    """Whether ``passage`` has at least :data:`SHARED_WORDS` content words of ``question``.

    An answer such as "$600" that occurs once may still be the wrong one (the
    documents say $500, and $600 is another fact): its sentence then speaks of
    something the question does not ask about.
    """
    asked = {word[:_STEM] for word in content_words(question)}
    found = {word[:_STEM] for word in content_words(passage)}
    return len(asked & found) >= SHARED_WORDS


@dataclass(frozen=True)
class Source:
    """A document answers are located in: ``name`` is how it is shown, ``path`` where it is."""

    name: str
    text: str
    path: Path | None = None
    folded: Folded = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "folded", fold(self.text))

    def line(self, offset: int) -> int:
        """The 1-based line of the character at ``offset``."""
        return self.text.count("\n", 0, offset) + 1


@dataclass(frozen=True)
class Place:
    """Where a piece of text lies in a document: ``text[start:end]``."""

    source: Source
    start: int
    end: int

    @property
    def line(self) -> int:
        """The 1-based line where it starts."""
        return self.source.line(self.start)

    @property
    def text(self) -> str:
        """The text as stored."""
        return self.source.text[self.start : self.end]

    def __str__(self) -> str:
        return f"{self.source.name}:{self.line}"


@dataclass(frozen=True)
class Closest:
    """The text most like an answer that occurs nowhere, with its rapidfuzz score (0..100)."""

    place: Place
    score: float


def occurrences(source: Source, answer: str) -> list[Place]:
    """Every place where ``answer`` occurs in ``source``, tolerating whitespace and case."""
    needle = fold_text(answer)
    if not needle:
        return []
    folded = source.folded
    places = []
    at = folded.text.find(needle)
    while at >= 0:
        start = folded.original_start(at)
        places.append(Place(source, start, folded.original_end(at + len(needle))))
        at = folded.text.find(needle, at + 1)
    return places


def nearest(source: Source, answer: str, start: int) -> Place | None:
    """The occurrence of ``answer`` nearest to ``start``: verbatim if there is one, else folded."""
    exact = []
    at = source.text.find(answer)
    while at >= 0 and answer:
        exact.append(Place(source, at, at + len(answer)))
        at = source.text.find(answer, at + 1)
    found = exact or occurrences(source, answer)
    return min(found, key=lambda place: (abs(place.start - start), place.start), default=None)


def sentence(text: str, start: int, end: int) -> tuple[int, int]:
    """The bounds of the sentence(s) around ``text[start:end]``, without surrounding whitespace.

    The passage covers the whole of ``start:end`` even where a sentence end
    seems to fall inside it, so the answer always lies inside its span.
    """
    begin, finish = 0, len(text)
    for stop, resume in _boundaries(text):
        if resume <= start:
            begin = resume
        elif stop >= end:
            finish = stop
            break
    while begin < start and text[begin].isspace():
        begin += 1
    while finish > end and text[finish - 1].isspace():
        finish -= 1
    return begin, finish


def sentences(text: str) -> list[tuple[int, int]]:
    """The bounds of each sentence of ``text``, without surrounding whitespace."""
    found = []
    begin = 0
    for stop, resume in [*_boundaries(text), (len(text), len(text))]:
        if stop < begin:  # a block marker right after a sentence end
            begin = max(begin, resume)
            continue
        piece = text[begin:stop]
        if piece.strip():
            lead = len(piece) - len(piece.lstrip())
            found.append((begin + lead, begin + len(piece.rstrip())))
        begin = resume
    return found


def _boundaries(text: str) -> list[tuple[int, int]]:
    """Where each sentence stops, and where the next resumes (after whitespace and block marker)."""
    found = {(m.start(), m.end()) for m in _BLOCK_START.finditer(text)}
    for m in _SENTENCE_END.finditer(text):
        before = text[max(0, m.start() - 8) : m.start() + 1]
        if text[m.start()] == "." and _ABBREVIATION.search(before):
            continue
        found.add((m.start() + len(m.group().rstrip()), m.end()))
    return sorted(found)


def closest_passage(sources: list[Source], answer: str) -> Closest | None:
    """The passage most like ``answer`` (rapidfuzz partial-ratio alignment over folded text)."""
    needle = fold_text(answer)
    best: Closest | None = None
    for source in sources:
        folded = source.folded
        if not needle or not folded.text:
            continue
        found = fuzz.partial_ratio_alignment(needle, folded.text)
        if found is None or (best is not None and found.score <= best.score):
            continue
        start = folded.original_start(found.dest_start)
        end = folded.original_end(max(found.dest_end, found.dest_start + 1))
        best = Closest(Place(source, *_whole_words(source.text, start, end)), float(found.score))
    return best


def _whole_words(text: str, start: int, end: int) -> tuple[int, int]:
    """``start:end`` widened so that it cuts no word in two (an alignment may)."""
    while 0 < start < len(text) and text[start - 1].isalnum() and text[start].isalnum():
        start -= 1
    while 0 < end < len(text) and text[end - 1].isalnum() and text[end].isalnum():
        end += 1
    return start, end
