"""A gold file's values: its cases, their spans, and the keys a gold file and a case may have."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..config.settings import GOLD_KEYS, Settings

FILE_KEYS = (*GOLD_KEYS, "doc", "cases")
CASE_KEYS = (
    "id",
    "question",
    "needle",
    "needles",
    "span",
    "doc",
    "k",
    "budget",
    "match",
    "fuzzy_threshold",
    "xfail",
    "skip",
    "marks",
)


@dataclass(frozen=True)
class SpanRange:
    """``span: {from: ..., to: ...}``: the shortest passage starting with ``start`` and ending with ``end``."""

    start: str
    end: str

    def __str__(self) -> str:
        return f"{self.start} … {self.end}"


Span = str | SpanRange


@dataclass(frozen=True)
class Case:
    """One gold question: what to ask, what must come back, what must survive chunking."""

    id: str
    question: str
    needles: tuple[str, ...]
    span: Span | None = None
    line: int = 1
    k: int | None = None
    budget: int | None = None  # units of context the case may read (see Plan.budget)
    match: str | None = None
    fuzzy_threshold: float | None = None
    xfail: str | None = None
    skip: str | None = None
    marks: tuple[str, ...] = ()
    doc: str | None = None  # a path or glob relative to the gold file, or a document id


@dataclass(frozen=True)
class GoldFile:
    """A parsed gold file; ``doc`` pins every case that has no ``doc`` of its own."""

    path: Path
    settings: Settings
    cases: tuple[Case, ...]
    doc: str | None = None


def slug(question: str) -> str:
    """The default case id: the question in lowercase words joined by dashes."""
    words = re.findall(r"\w+", question.lower())
    text = "-".join(words)
    if len(text) > 60:
        text = text[:60].rsplit("-", 1)[0]
    return text or "case"
