"""What a run keeps of each case once its entry is spooled: a few facts, or its name and verdict.

A run's end needs every case's numbers (the totals, the span arithmetic, the
baseline to write) but names only some cases (a change against the baseline):
:class:`CaseFact` is the first, :class:`CaseBrief` the second, both read from the
case's entry rather than its whole :class:`.results.CaseResult`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

from .results import Verdict, outcome_text


class Scored(Protocol):
    """A case as a comparison with the baseline names it: where it is, and how it did."""

    @property
    def gold_file(self) -> str: ...
    @property
    def id(self) -> str: ...
    @property
    def line(self) -> int: ...
    @property
    def question(self) -> str: ...
    @property
    def verdict(self) -> Verdict: ...
    @property
    def rank(self) -> int | None: ...
    @property
    def hit(self) -> bool: ...


@dataclass(frozen=True, slots=True)
class CaseBrief:
    """What a run keeps of an evaluated case whose full result went to the spool: enough to
    name it in the comparison with the baseline (see :class:`Scored`)."""

    gold_file: str
    id: str
    line: int
    question: str
    verdict: Verdict
    rank: int | None

    @property
    def hit(self) -> bool:
        return self.verdict == "hit"

    def __str__(self) -> str:
        return outcome_text(self.verdict, self.rank)

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> CaseBrief:
        """The brief of a case's report entry (``CaseResult.to_json()`` and more)."""
        return cls(
            entry["gold_file"],
            entry["id"],
            entry["line"],
            entry["question"],
            entry["verdict"],
            entry["rank"],
        )


class CaseFact(NamedTuple):
    """What the totals, the span arithmetic and the baseline need of one evaluated case.

    Facts of one gold file sort in its line order.
    """

    line: int
    id: str
    verdict: Verdict
    rank: int | None
    span_split: bool
    span_length: int
    pieces_retrieved: bool | None
    k: int

    @property
    def hit(self) -> bool:
        return self.verdict == "hit"

    @classmethod
    def of(cls, entry: Mapping[str, Any]) -> CaseFact:
        """The facts of a case's report entry (``CaseResult.to_json()`` and more)."""
        return cls(
            entry["line"],
            entry["id"],
            entry["verdict"],
            entry["rank"],
            entry["span_split"],
            entry["span_length"],
            entry["pieces_retrieved"],
            entry["k"],
        )
