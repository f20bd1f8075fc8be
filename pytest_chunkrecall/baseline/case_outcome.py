"""A case's test outcome against the baseline: passed, an expected failure, or failed."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ..config.table import Gate, Policy
from ..evaluation.case_facts import Scored
from ..evaluation.repeat import ranks_text
from ..evaluation.verdicts import kind_of
from .reasons import tolerated_regression
from .saved import Entry, classify


def expectation(entry: Entry | None, result: Scored, *, gate: Gate, updating: bool) -> str | None:
    """Why a missed case is an expected failure, or ``None``: it fails.

    For a case without a YAML ``xfail`` whose needles are in the corpus (an
    ``absent`` one is a gold-data error to fix, never a miss to accept).
    """
    if updating:
        return f"recorded in the baseline as a known miss: {result.verdict}"
    change = classify(entry, result)
    if change in ("known_miss", "stage_change"):
        assert entry is not None
        now = "" if entry.verdict == result.verdict else f" (now {result.verdict})"
        if change == "stage_change":
            now = (
                " (now reranked_out: the first stage's candidates hold it and the reranker "
                "drops it, a change of stage, not a regression)"
            )
        return f"known miss in baseline: {entry.verdict}{now}"
    if change == "regression" and gate == "significant":
        assert entry is not None
        return tolerated_regression(entry, result.verdict)
    return None


@dataclass(frozen=True)
class CaseOutcome:
    """A case's test outcome, and why a miss is an expected failure when the baseline says so
    (``None`` for a YAML ``xfail``, whose reason is the gold file's)."""

    outcome: Literal["passed", "xpassed", "xfailed", "failed"]
    reason: str | None = None


def case_outcome(
    result: Scored,
    entry: Entry | None,
    *,
    xfail: str | None,
    gate: Gate,
    updating: bool = False,
    quarantined: Sequence[int | None] | None = None,
) -> CaseOutcome:
    """The test outcome of an evaluated case: the one decision ``CaseItem.runtest`` and the
    ``compare`` command both take.

    An unstable case under ``chunkrecall_unstable = quarantine`` (``quarantined``: the
    ranks its repeats saw) is an expected failure whatever it got. Otherwise a hit
    passes (an ``xpassed`` under a YAML ``xfail``); a YAML ``xfail`` keeps its own
    meaning; an ``absent`` needle is a gold-data error to fix, never a miss to accept;
    any other miss is an expected failure when :func:`expectation` says why.
    """
    if quarantined is not None:
        return CaseOutcome("xfailed", quarantine_reason(quarantined))
    if result.hit:
        return CaseOutcome("xpassed" if xfail is not None else "passed")
    if xfail is not None:
        return CaseOutcome("xfailed")
    if not kind_of(result.verdict).gold_error:
        reason = expectation(entry, result, gate=gate, updating=updating)
        if reason is not None:
            return CaseOutcome("xfailed", reason)
    return CaseOutcome("failed")


def quarantine_reason(ranks_seen: Sequence[int | None]) -> str:
    """Why a quarantined case is an expected failure: the ranks its repeats saw."""
    return (
        f"unstable: ranks seen {ranks_text(ranks_seen)} (chunkrecall_unstable = quarantine "
        "leaves it out of the baseline comparison)"
    )


def quarantined(
    unstable: bool | None, ranks_seen: Sequence[int | None] | None, policy: Policy
) -> Sequence[int | None] | None:
    """The ranks seen of a case that ``policy`` quarantines, else ``None``: it is judged as
    any other."""
    if policy == "quarantine" and unstable and ranks_seen is not None:
        return ranks_seen
    return None
