"""A gold file's values: its cases, their spans, and the keys a gold file and a case may have."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..config.settings import GOLD_KEYS, Settings

FILE_KEYS = (*GOLD_KEYS, "doc", "filter", "cases")
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
    # what must not come back
    "must_not",
    "must_not_doc",
    # what the retriever is asked with
    "filter",
    # several places the answer may come back from
    "any_of",
)
ALTERNATIVE_KEYS = ("needle", "needles", "span", "doc")


@dataclass(frozen=True)
class SpanRange:
    """``span: {from: ..., to: ...}``: the shortest passage starting with ``start`` and ending with ``end``."""

    start: str
    end: str

    def __str__(self) -> str:
        return f"{self.start} … {self.end}"


Span = str | SpanRange


@dataclass(frozen=True)
class Filter:
    """``filter:``: a mapping passed unchanged as ``filter=`` to the retriever's search.

    ``mapping`` is the mapping as the gold file gives it; ``key`` its canonical
    JSON, which tells two filters apart (questions are asked, and batched, by it).
    """

    key: str
    mapping: Mapping[str, Any] = field(compare=False)

    @classmethod
    def of(cls, mapping: Mapping[str, Any]) -> Filter:
        return cls(json.dumps(mapping, sort_keys=True, default=str), mapping)

    def to_json(self) -> dict[str, Any]:
        """The filter as the report records it: JSON values (others as their text)."""
        plain: dict[str, Any] = json.loads(self.key)
        return plain


@dataclass(frozen=True)
class Alternative:
    """One entry of ``any_of``: a place the answer may come back from, with its own needles,
    span and ``doc``; ``line`` is where the gold file gives it."""

    needles: tuple[str, ...]
    span: Span | None = None
    doc: str | None = None
    line: int = 1


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
    # What must not come back: texts in the case's match mode, and documents (paths or
    # globs relative to the gold file, or document ids). A case may have only these.
    must_not: tuple[str, ...] = ()
    must_not_doc: tuple[str, ...] = ()
    filter: Filter | None = None  # the gold file's, when the case has none of its own
    alternatives: tuple[Alternative, ...] = ()  # any_of: a hit when any one of them is

    @property
    def negative_only(self) -> bool:
        """Whether the case names only what must not come back, and no needle."""
        return not self.needles and not self.alternatives

    def variants(self) -> tuple[Case, ...]:
        """The case as each of its alternatives would be without the others (``any_of``); a
        case without alternatives is its one variant. An alternative without a ``doc`` keeps
        the case's."""
        if not self.alternatives:
            return (self,)
        return tuple(
            replace(
                self,
                needles=alternative.needles,
                span=alternative.span,
                doc=alternative.doc if alternative.doc is not None else self.doc,
                alternatives=(),
            )
            for alternative in self.alternatives
        )


@dataclass(frozen=True)
class GoldFile:
    """A parsed gold file; ``doc`` pins every case that has no ``doc`` of its own."""

    path: Path
    settings: Settings
    cases: tuple[Case, ...]
    doc: str | None = None
    filter: Filter | None = None


def slug(question: str) -> str:
    """The default case id: the question in lowercase words joined by dashes."""
    words = re.findall(r"\w+", question.lower())
    text = "-".join(words)
    if len(text) > 60:
        text = text[:60].rsplit("-", 1)[0]
    return text or "case"
