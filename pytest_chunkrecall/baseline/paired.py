"""The comparison with the baseline as paired statistics: each case both runs have, hit or not."""

from __future__ import annotations

from ..measures.statistics import PairedComparison, compare_pairs
from .saved import Comparison


def paired_hits(comparison: Comparison) -> tuple[list[bool], list[bool]]:
    """The baseline's and this run's hit on each case both have, as two aligned vectors.

    The paired statistics read only how many cases stayed, regressed or improved, so
    the vectors are laid out by those counts rather than by case. A regression that was a
    miss in the baseline (a new leak) changes no hit: it is a miss in both.
    """
    b = sum(1 for _, entry in comparison.regressions if entry.hit)
    c = len(comparison.improvements)
    kept = comparison.baseline_hits - b  # hits in both
    never = comparison.common - kept - b - c  # misses in both
    before = [True] * (kept + b) + [False] * (c + never)
    after = [True] * kept + [False] * b + [True] * c + [False] * never
    return before, after


def paired(comparison: Comparison, *, alpha: float) -> PairedComparison:
    """The paired statistics of ``comparison`` at level ``alpha``."""
    before, after = paired_hits(comparison)
    return compare_pairs(before, after, alpha=alpha)
