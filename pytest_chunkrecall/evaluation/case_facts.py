"""What a run keeps of each case once its entry is spooled, and what the baseline keeps of it:
projections of the one case record.

A run's end needs every case's numbers (the totals, the span arithmetic, the
baseline to write) but names only some cases (a change against the baseline):
:class:`CaseFact` is the first, :class:`CaseBrief` the second, both read from the
case's entry rather than its whole :class:`.results.CaseResult`. The baseline
remembers a case's :class:`Entry`.

Each is a projection (:func:`.codec.projection`): its fields are fields of the
record, of the same types, checked where it is defined. None defines a fact of
its own; each is read from an entry through the record's codec
(:func:`.codec.project`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from . import codec
from .results import BaselineMark, CaseResult, Count, Line, Rank, Verdict, outcome_text


@codec.projection(BaselineMark)
@dataclass(frozen=True, slots=True)
class Entry:
    """What the baseline remembers of one case: its verdict, rank and span_split then (the
    first fields of the :class:`BaselineMark` a case compared with it records)."""

    verdict: Verdict
    rank: Rank | None
    span_split: bool
    context_to_answer: Count | None = None  # what the answer cost then, for the cost gate

    @property
    def hit(self) -> bool:
        return self.verdict == "hit"

    def __str__(self) -> str:
        return outcome_text(self.verdict, self.rank)

    def to_json(self) -> dict[str, Any]:
        """The entry as the baseline file holds it: a miss has no ``context_to_answer``."""
        plain: dict[str, Any] = codec.encode(self)
        if plain.get("context_to_answer") is None:
            plain.pop("context_to_answer", None)
        return plain

    @classmethod
    def of(cls, result: CaseResult | CaseFact) -> Entry:
        """What the baseline records of ``result``."""
        return cls(result.verdict, result.rank, result.span_split, result.context_to_answer)


@codec.projection(CaseResult)
@dataclass(frozen=True, slots=True)
class CaseBrief:
    """What a run keeps of an evaluated case whose full result went to the spool: enough to
    name it in the comparison with the baseline."""

    gold_file: str
    id: str
    line: Line
    question: str
    verdict: Verdict
    rank: Rank | None
    context_to_answer: Count | None

    @property
    def hit(self) -> bool:
        return self.verdict == "hit"

    def __str__(self) -> str:
        return outcome_text(self.verdict, self.rank)

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> CaseBrief:
        """The brief of a case's report entry (``CaseResult.to_json()`` and more)."""
        return codec.project(cls, entry)


Scored = CaseResult | CaseBrief
"""A case as a comparison with the baseline names it: its whole record, or its brief."""


@codec.projection(CaseResult)
@dataclass(frozen=True, slots=True, order=True)
class CaseFact:
    """What the totals, the span arithmetic and the baseline need of one evaluated case.

    Facts of one gold file sort in its line order.
    """

    line: Line
    id: str
    verdict: Verdict
    rank: Rank | None
    span_split: bool
    span_length: Count
    pieces_retrieved: bool | None
    k: Rank
    unit: str
    context: Count | None
    context_to_answer: Count | None

    @property
    def hit(self) -> bool:
        return self.verdict == "hit"

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> CaseFact:
        """The facts of a case's report entry (``CaseResult.to_json()`` and more)."""
        return codec.project(cls, entry)
