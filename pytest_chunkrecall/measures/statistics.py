"""Statistics that tell a real change of hit rate from noise, as small pure functions.

Of ``n`` paired cases, ``b`` *regressions* were hits and now miss, ``c`` *improvements* missed
and now hit. Unchanged cases say nothing about the direction of a change, so the tests read
only ``b`` and ``c`` (McNemar's idea).
"""

from __future__ import annotations

import math
import random
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import Any, Literal, TypedDict

Decision = Literal["worse", "better", "no_difference", "not_enough_evidence"]

Z95 = 1.959963984540054  # the standard normal's 97.5% quantile, for two-sided 95% intervals
SEED = 20240917
"""The bootstrap's fixed seed: a report and its summary line read the same on every run."""

# A binomial table ends where a term is this small beside the mode's: the mass left out is far
# below a double's resolution, and the table stays about 18 standard deviations wide.
_NEGLIGIBLE = 1e-18


def wilson(hits: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for ``hits`` out of ``n``; no cases say nothing: (0.0, 1.0).

    With p = hits/n: (p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n), which unlike
    p ± z·se stays inside [0, 1] and is not empty at 0 or n hits.
    """
    if n < 0 or not 0 <= hits <= n:
        raise ValueError(f"wilson needs 0 <= hits <= n, got hits={hits}, n={n}")
    if n == 0:
        return 0.0, 1.0
    p, z2 = hits / n, z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    # At 0 or n hits the bound is exactly 0 or 1; rounding must not move it off.
    low = 0.0 if hits == 0 else max(0.0, centre - half)
    high = 1.0 if hits == n else min(1.0, centre + half)
    return low, high


def _upper_tail(k: int, n: int) -> int:
    """The exact sum of comb(n, j) for j >= k, summing whichever tail is shorter."""
    short_upper = k > n // 2
    total, term = 0, 1  # term runs through comb(n, j) from j = 0 (by symmetry also j = n)
    for j in range(max(0, n - k + 1) if short_upper else k):
        total += term
        term = term * (n - j) // (j + 1)
    return total if short_upper else (1 << n) - total


def mcnemar_one_sided(b: int, c: int) -> float:
    """The exact one-sided McNemar p of ``b`` regressions against ``c`` improvements.

    P(X >= b) for X ~ Binomial(b + c, 1/2), 1.0 if nothing changed: summed in integers and
    divided once, so it is correctly rounded for any count.
    """
    if b < 0 or c < 0:
        raise ValueError(f"counts cannot be negative, got b={b}, c={c}")
    return _upper_tail(b, b + c) / (1 << (b + c))


def mcnemar_two_sided(b: int, c: int) -> float:
    """The exact two-sided McNemar p: min(1, 2 · min(P(X >= b), P(X <= b))), X as above."""
    return min(1.0, 2 * min(mcnemar_one_sided(b, c), mcnemar_one_sided(c, b)))


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment of ``p_values``, returned in their order.

    With the m values sorted ascending, p(i) becomes max over j <= i of min(1, (m-j+1) · p(j)).
    """
    if not all(0.0 <= p <= 1.0 for p in p_values):
        raise ValueError(f"p-values lie in [0, 1], got {list(p_values)!r}")
    m = len(p_values)
    adjusted, running = [0.0] * m, 0.0
    for rank, index in enumerate(sorted(range(m), key=lambda i: p_values[i])):
        running = max(running, min(1.0, (m - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


def _binomial(trials: int, p: float) -> Callable[[float], int]:
    """Inverse-CDF draws from Binomial(trials, p), from a cumulative table built once."""
    # Masses relative to the mode's, walking out by pmf(k -/+ 1) / pmf(k) until negligible.
    mode, down, up = min(trials, math.floor((trials + 1) * p)), [1.0], [1.0]
    while 0 < p < 1 and (k := mode - len(down) + 1) > 0 and down[-1] >= _NEGLIGIBLE:
        down.append(down[-1] * k * (1 - p) / ((trials - k + 1) * p))
    while 0 < p < 1 and (k := mode + len(up) - 1) < trials and up[-1] >= _NEGLIGIBLE:
        up.append(up[-1] * (trials - k) * p / ((k + 1) * (1 - p)))
    low, cumulative = mode - len(down) + 1, list(accumulate([*reversed(down), *up[1:]]))
    last = len(cumulative) - 1
    return lambda u: low + min(bisect_right(cumulative, u * cumulative[last]), last)


def _counts(before: Sequence[bool], after: Sequence[bool]) -> tuple[int, int, int]:
    if len(before) != len(after):
        raise ValueError(f"pairs need as many cases after as before: {len(before)} vs {len(after)}")
    b = sum(1 for was, now in zip(before, after, strict=True) if was and not now)
    c = sum(1 for was, now in zip(before, after, strict=True) if now and not was)
    return len(before), b, c


def _points(n: int, b: int, c: int) -> float:
    return (c - b) * 100 / n + 0.0 if n else 0.0


def _interval(n: int, b: int, c: int, resamples: int, seed: int) -> tuple[float, float]:
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, got {resamples}")
    if (changed := b + c) == 0:
        return 0.0, 0.0
    rng = random.Random(seed)
    # A paired resample of n cases is a multinomial draw of (regressions, improvements,
    # unchanged): first how many changed, then how those split. The split draws the rarer
    # side, so swapping b and c negates every resample and mirrors the interval exactly.
    changes, splits = _binomial(n, changed / n), dict[int, Callable[[float], int]]()
    deltas = []  # improvements minus regressions, per resample
    for _ in range(resamples):
        d = changes(rng.random())
        split = splits.get(d) or splits.setdefault(d, _binomial(d, min(b, c) / changed))
        rarer = split(rng.random())
        deltas.append(d - 2 * rarer if b <= c else 2 * rarer - d)
    if b == c:  # a distribution symmetric about 0: its mirror image is as good a sample of it
        deltas += [-delta for delta in deltas]
    deltas.sort()
    low = max(0, math.ceil(0.025 * len(deltas)) - 1)  # as many scores outside on either side
    return deltas[low] * 100 / n + 0.0, deltas[-1 - low] * 100 / n + 0.0


def paired_interval(
    before: Sequence[bool], after: Sequence[bool], *, resamples: int = 10_000, seed: int = SEED
) -> tuple[float, float]:
    """A 95% paired bootstrap interval for the change of hit rate, in percentage points.

    A resample draws n cases with replacement and scores hit rate after minus before; the
    percentile interval takes the 2.5% and 97.5% order statistics of ``resamples`` scores. A
    score depends only on how many regressions, improvements and unchanged cases were drawn, so
    those multinomial counts are drawn by inverse CDF from cached binomial tables: the same
    distribution at a cost that barely grows with n. ``random.Random(seed)`` fixes the result.
    """
    n, b, c = _counts(before, after)
    return _interval(n, b, c, resamples, seed)


class ComparisonJSON(TypedDict):
    """The report's top-level ``comparison`` object."""

    cases: int
    regressions: int
    improvements: int
    hit_rate_before: float
    hit_rate_after: float
    delta_points: float
    ci95_points: list[float]
    p_value: float
    decision: Decision


@dataclass(frozen=True)
class PairedComparison:
    """This run against the baseline, on the cases both have."""

    cases: int
    regressions: int
    improvements: int
    hit_rate_before: float
    hit_rate_after: float
    delta_points: float  # hit rate after minus before, in percentage points
    ci95_points: tuple[float, float]  # from paired_interval
    p_value: float  # one-sided McNemar: P(at least this many regressions by chance)
    decision: Decision

    def to_json(self) -> ComparisonJSON:
        """The JSON object: rates to 6 decimals, points to 4, p to 6 significant digits."""
        low, high = self.ci95_points
        return {
            "cases": self.cases,
            "regressions": self.regressions,
            "improvements": self.improvements,
            "hit_rate_before": round(self.hit_rate_before, 6) + 0.0,
            "hit_rate_after": round(self.hit_rate_after, 6) + 0.0,
            "delta_points": round(self.delta_points, 4) + 0.0,
            "ci95_points": [round(low, 4) + 0.0, round(high, 4) + 0.0],
            "p_value": float(f"{self.p_value:.6g}"),
            "decision": self.decision,
        }


def decide(b: int, c: int, *, alpha: float = 0.05) -> Decision:
    """What ``b`` regressions and ``c`` improvements say at level ``alpha`` in (0, 0.5].

    - ``not_enough_evidence`` when 0.5**(b + c) >= alpha: even b + c regressions would not
      reach alpha, so "no difference" would claim more than the data can say.
    - ``worse`` when P(X >= b) < alpha: more regressions than chance explains.
    - ``better`` when P(X >= c) < alpha: more improvements than chance explains.
    - ``no_difference`` otherwise: enough changed cases to see a change, and none seen.
    """
    if not 0.0 < alpha <= 0.5:  # the tails sum to >= 1: up to 0.5, worse excludes better
        raise ValueError(f"alpha must lie in (0, 0.5], got {alpha!r}")
    if 0.5 ** (b + c) >= alpha:
        return "not_enough_evidence"
    if mcnemar_one_sided(b, c) < alpha:
        return "worse"
    if mcnemar_one_sided(c, b) < alpha:
        return "better"
    return "no_difference"


def compare_pairs(
    before: Sequence[bool], after: Sequence[bool], *, alpha: float = 0.05
) -> PairedComparison:
    """Baseline hits ``before`` against this run's ``after``, case by case, at ``alpha``.

    No cases give rates of 0.0, a change of 0 points and ``not_enough_evidence``.
    """
    n, b, c = _counts(before, after)
    hits = sum(1 for hit in before if hit)
    rates = (hits / n, (hits - b + c) / n) if n else (0.0, 0.0)
    interval = paired_interval(before, after)
    p_value, decision = mcnemar_one_sided(b, c), decide(b, c, alpha=alpha)
    return PairedComparison(n, b, c, *rates, _points(n, b, c), interval, p_value, decision)


@dataclass(frozen=True)
class SweepEvidence:
    """One sweep row against the configured setting, on the same cases."""

    cases: int
    regressions: int  # hits of the configured setting that this row misses
    improvements: int  # misses of the configured setting that this row hits
    delta_points: float  # this row's hit rate minus the configured one's
    p_value: float  # two-sided exact McNemar
    p_holm: float  # p_value Holm-adjusted across all rows
    significant: bool  # p_holm < alpha


def sweep_evidence(
    configured: Sequence[bool], rows: Sequence[Sequence[bool]], *, alpha: float = 0.05
) -> list[SweepEvidence]:
    """Each sweep row's hits against the ``configured`` setting's, case by case.

    Two-sided, as a row may be better or worse; Holm-adjusted, as among many rows some would
    look significant by chance alone.
    """
    counts = [_counts(configured, row) for row in rows]
    raw = [mcnemar_two_sided(b, c) for _, b, c in counts]
    return [
        SweepEvidence(n, b, c, _points(n, b, c), p, adjusted, adjusted < alpha)
        for (n, b, c), p, adjusted in zip(counts, raw, holm(raw), strict=True)
    ]


def sign_test(increases: int, decreases: int) -> float:
    """The exact two-sided sign test of ``increases`` against ``decreases`` (ties dropped).

    With n = increases + decreases and X ~ Binomial(n, 1/2),
    p = min(1, 2 · min(P(X >= increases), P(X <= increases))); 1.0 when n = 0. It is
    the two-sided McNemar p of the same counts (:func:`mcnemar_two_sided`).
    """
    return mcnemar_two_sided(increases, decreases)


@dataclass(frozen=True)
class ContextChange:
    """The context to the answer before and after, over the cases hit in both runs.

    ``before`` and ``after`` are the mean ``context_to_answer`` of the ``cases`` hit in
    both runs that record it (``None``: no such case); ``change_percent`` =
    100 · (after - before) / before (``None`` without a case or with ``before`` 0);
    ``p_value`` the exact two-sided sign test (:func:`sign_test`) on the per-case
    differences: ``increases`` cases read more to the answer, ``decreases`` less.
    """

    cases: int
    before: float | None
    after: float | None
    change_percent: float | None
    increases: int
    decreases: int
    p_value: float

    @classmethod
    def of(cls, pairs: Sequence[tuple[int, int]]) -> ContextChange:
        """The change over ``pairs``: each case's context to the answer (before, after)."""
        n = len(pairs)
        before = sum(first for first, _ in pairs) / n if n else None
        after = sum(second for _, second in pairs) / n if n else None
        change = (
            100 * (after - before) / before
            if before is not None and after is not None and before > 0
            else None
        )
        increases = sum(1 for first, second in pairs if second > first)
        decreases = sum(1 for first, second in pairs if second < first)
        return cls(n, before, after, change, increases, decreases, sign_test(increases, decreases))

    def significant(self, alpha: float) -> bool:
        """Whether the sign test sees a change at level ``alpha``."""
        return self.p_value < alpha

    def to_json(self) -> dict[str, Any]:
        def rounded(value: float | None) -> float | None:
            return round(value, 4) + 0.0 if value is not None else None

        return {
            "cases": self.cases,
            "before": rounded(self.before),
            "after": rounded(self.after),
            "change_percent": rounded(self.change_percent),
            "p_value": float(f"{self.p_value:.6g}"),
        }
