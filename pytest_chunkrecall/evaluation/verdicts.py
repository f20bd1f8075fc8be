"""The verdicts a case can get: one ordered type, each member with the stage that lost it.

A case travels loaded → kept whole by chunking → in the first stage's candidates →
in the top k, and its verdict is the first stage that lost it (``hit``: none did),
unless a top-k chunk holds what must not come back: ``leaked`` wins over every other.
Everything that treats verdicts differently reads it here: the decision
(:func:`.verdict.decide`, by :attr:`VerdictKind.precedence`), the funnel (by
:attr:`VerdictKind.lost_at`), a case's outcome (:attr:`VerdictKind.gold_error`),
the worst of a case's repeats (:attr:`VerdictKind.severity`), the failure
message's headline (:attr:`VerdictKind.why`), the HTML page's colour
(:attr:`VerdictKind.colour`), the terminal's verdict counts
(:attr:`VerdictKind.staged`) and the allowed values of the report's schema and of
a baseline (:data:`VERDICTS`).

A new verdict is one member of :data:`KINDS` (and its name in :data:`Verdict`,
which a test holds to :data:`KINDS`), then its docs and tests.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Verdict = Literal["hit", "split", "ranked_out", "absent", "unparsed", "reranked_out", "leaked"]
"""A verdict's name, as the report, the baseline and the test report carry it."""

Stage = Literal["loaded", "whole", "candidates", "top_k"]
STAGES: tuple[Stage, ...] = ("loaded", "whole", "candidates", "top_k")
"""The stages a case passes, in order: the funnel's steps after ``cases``."""


@dataclass(frozen=True)
class VerdictKind:
    """One verdict and what it means to every part of the run.

    ``lost_at``: the first stage the case does not reach (``None``: it reached every
    one, a hit). ``precedence``: where :func:`.verdict.decide` asks whether it holds
    (lowest first; the first that holds is the verdict). ``severity``: how bad it is
    (higher is worse): a case asked several times counts at its worst. ``gold_error``:
    the gold file is wrong, so the miss fails whatever the baseline says.
    ``staged``: only a run with a loader or a reranker, or a case with ``must_not``, can
    give it, so a summary names it where a case has it. ``why``: the failure message's explanation
    (``{k}``, ``{reranker}`` filled in). ``colour`` and ``symbol``: how the HTML page
    marks it.
    """

    name: Verdict
    lost_at: Stage | None
    precedence: int
    severity: int
    why: str
    colour: str
    symbol: str
    staged: bool = False
    gold_error: bool = False

    @property
    def passes(self) -> bool:
        """Whether a case with this verdict passes its test: it reached the top k."""
        return self.lost_at is None

    @property
    def span_loaded(self) -> bool:
        """Whether the case's span is in the loaded text, where chunking can cut it: not when
        the loader lost it or the gold file is wrong."""
        return self.lost_at != "loaded" and not self.gold_error


# In the order the report counts them (the order of its ``verdicts`` keys).
KINDS: tuple[VerdictKind, ...] = (
    VerdictKind(
        "hit",
        lost_at=None,
        precedence=3,
        severity=0,
        why="one top-k chunk holds it whole",
        colour="#1d7a3c",
        symbol="\u2713",
    ),
    VerdictKind(
        "split",
        lost_at="whole",
        precedence=4,
        severity=3,
        why="the span is in the corpus, but no single chunk holds it whole: chunking lost it "
        "before ranking",
        colour="#b3261e",
        symbol="\u2702",
    ),
    VerdictKind(
        "ranked_out",
        lost_at="candidates",
        precedence=5,
        severity=2,
        why="a chunk holds it whole, but the retriever did not rank that chunk in the top {k}",
        colour="#8a5a00",
        symbol="\u2193",
    ),
    VerdictKind(
        "absent",
        lost_at="whole",
        precedence=2,
        severity=5,
        why="it is not in the corpus at all: a gold-data error (fix the needle or span, or the "
        "corpus)",
        colour="#5d4a9b",
        symbol="\u2205",
        gold_error=True,
    ),
    VerdictKind(
        "unparsed",
        lost_at="loaded",
        precedence=1,
        severity=4,
        why="a source file has it, but the text the loader read from that file does not: "
        "loading lost it before chunking (fix the loader, or the file)",
        colour="#0b6e79",
        symbol="\u2298",
        staged=True,
    ),
    VerdictKind(
        "reranked_out",
        lost_at="top_k",
        precedence=6,
        severity=1,
        why="a first-stage candidate holds it whole, but the reranker {reranker} dropped that "
        "chunk from the top {k}",
        colour="#9b2f6e",
        symbol="\u21a1",
        staged=True,
    ),
    VerdictKind(
        "leaked",
        lost_at="top_k",
        precedence=0,
        severity=6,
        why="a top-{k} chunk holds what must not come back (must_not or must_not_doc)",
        colour="#6b1010",
        symbol="\u26a0",
        staged=True,
    ),
)

BY_NAME: dict[str, VerdictKind] = {kind.name: kind for kind in KINDS}

VERDICTS: tuple[Verdict, ...] = tuple(kind.name for kind in KINDS)
"""Every verdict's name, in the report's order."""

STAGE_VERDICTS: tuple[Verdict, ...] = tuple(kind.name for kind in KINDS if kind.staged)
"""The verdicts only a run with a loader or a reranker, or a case with ``must_not``, gives."""

LOSSES: tuple[Verdict, ...] = tuple(
    kind.name
    for kind in sorted(
        (kind for kind in KINDS if kind.lost_at is not None),
        key=lambda kind: STAGES.index(kind.lost_at) if kind.lost_at is not None else 0,
    )
)
"""The verdicts of a miss, in the order of the stages that lose them (the funnel's loss list)."""

DECIDED_IN: tuple[Verdict, ...] = tuple(
    kind.name for kind in sorted(KINDS, key=lambda kind: kind.precedence)
)
"""The order in which the decision asks whether each verdict holds."""

SEVERITY: tuple[Verdict, ...] = tuple(
    kind.name for kind in sorted(KINDS, key=lambda kind: kind.severity)
)
"""The verdicts from best to worst."""


def kind_of(verdict: str) -> VerdictKind:
    """The member named ``verdict`` (a ``KeyError`` for a name that is none)."""
    return BY_NAME[verdict]
