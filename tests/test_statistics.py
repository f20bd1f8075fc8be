"""The baseline gate's statistics, against hand-computed values, scipy and exact resampling."""

from __future__ import annotations

import itertools
import json
import math
import random
import time
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_chunkrecall.measures.statistics import (
    ContextChange,
    compare_pairs,
    decide,
    holm,
    mcnemar_one_sided,
    mcnemar_two_sided,
    paired_interval,
    sign_test,
    sweep_evidence,
    wilson,
)


@pytest.fixture
def scipy_stats() -> Any:
    """scipy's statistics, the reference these numbers are checked against (test-only)."""
    return pytest.importorskip("scipy.stats")


def pairs(n: int, hits_before: int, b: int, c: int) -> tuple[list[bool], list[bool]]:
    """n cases, ``hits_before`` baseline hits, of which b regress; c misses improve."""
    before = [i < hits_before for i in range(n)]
    after = list(before)
    for i in range(b):
        after[i] = False
    for i in range(hits_before, hits_before + c):
        after[i] = True
    return before, after


# --- worked examples -------------------------------------------------------------------------


def test_eight_regressions_three_improvements_on_200_cases() -> None:
    before, after = pairs(200, 160, 8, 3)
    cmp = compare_pairs(before, after)
    assert (cmp.cases, cmp.regressions, cmp.improvements) == (200, 8, 3)
    assert (cmp.hit_rate_before, cmp.hit_rate_after, cmp.delta_points) == (0.8, 0.775, -2.5)
    # (C(11,8) + C(11,9) + C(11,10) + C(11,11)) / 2**11
    assert cmp.p_value == (165 + 55 + 11 + 1) / 2048 == 232 / 2048
    assert cmp.decision == "no_difference"
    low, high = cmp.ci95_points
    assert low <= -2.5 <= high and low < 0 < high
    # changes move the rate in steps of 100/200 = 0.5 points
    assert low * 2 == int(low * 2) and high * 2 == int(high * 2)


def test_thirty_regressions_and_no_improvement_is_worse() -> None:
    cmp = compare_pairs(*pairs(200, 160, 30, 0))
    assert cmp.p_value == 0.5**30
    assert cmp.decision == "worse"
    assert cmp.delta_points == -15.0
    assert cmp.ci95_points[1] < 0


def test_thirty_improvements_is_better() -> None:
    cmp = compare_pairs(*pairs(200, 100, 0, 30))
    assert cmp.p_value == 1.0
    assert cmp.decision == "better"
    assert cmp.ci95_points[0] > 0


def test_two_regressions_cannot_be_evidence_at_005() -> None:
    # two changed cases give at best p = 0.25, which is never below 0.05
    cmp = compare_pairs(*pairs(50, 40, 2, 0))
    assert cmp.p_value == 0.25
    assert cmp.decision == "not_enough_evidence"
    assert decide(4, 0, alpha=0.05) == "not_enough_evidence"  # 0.0625
    assert decide(5, 0, alpha=0.05) == "worse"  # 0.03125
    assert decide(2, 0, alpha=0.3) == "worse"  # 0.25 < 0.3


def test_no_change_and_no_cases() -> None:
    same = compare_pairs([True, False, True], [True, False, True])
    assert (same.regressions, same.improvements, same.p_value) == (0, 0, 1.0)
    assert same.ci95_points == (0.0, 0.0)
    assert same.decision == "not_enough_evidence"
    empty = compare_pairs([], [])
    assert empty.to_json() == {
        "cases": 0,
        "regressions": 0,
        "improvements": 0,
        "hit_rate_before": 0.0,
        "hit_rate_after": 0.0,
        "delta_points": 0.0,
        "ci95_points": [0.0, 0.0],
        "p_value": 1.0,
        "decision": "not_enough_evidence",
    }


def test_decision_between_the_two_one_sided_tests() -> None:
    assert decide(8, 3) == "no_difference"
    assert decide(3, 8) == "no_difference"
    assert decide(12, 2) == "worse"  # P(X >= 12 | 14) = 106/16384
    assert decide(2, 12) == "better"
    with pytest.raises(ValueError, match="alpha"):
        decide(1, 1, alpha=0.0)


def test_json_has_exactly_the_nine_keys_and_is_strict() -> None:
    data = compare_pairs(*pairs(7, 3, 1, 2)).to_json()
    assert list(data) == [
        "cases",
        "regressions",
        "improvements",
        "hit_rate_before",
        "hit_rate_after",
        "delta_points",
        "ci95_points",
        "p_value",
        "decision",
    ]
    assert data["hit_rate_before"] == 0.428571  # 3/7 to six decimals
    assert data["delta_points"] == 14.2857  # 100/7 to four
    assert data["p_value"] == 0.875  # P(X >= 1 | 3) = 7/8
    json.dumps(data, allow_nan=False)


def test_mismatched_lengths_say_so() -> None:
    with pytest.raises(ValueError, match="as many cases after as before: 3 vs 2"):
        compare_pairs([True, True, False], [True, False])


# --- against scipy and hand values -----------------------------------------------------------


def test_mcnemar_agrees_with_scipy_on_a_grid(scipy_stats: Any) -> None:
    for b in range(41):
        for c in range(41):
            if b + c == 0:
                continue
            one = scipy_stats.binomtest(b, b + c, 0.5, alternative="greater").pvalue
            two = scipy_stats.binomtest(b, b + c, 0.5).pvalue
            assert mcnemar_one_sided(b, c) == pytest.approx(one, rel=1e-12, abs=1e-300)
            assert mcnemar_two_sided(b, c) == pytest.approx(two, rel=1e-9)


def test_mcnemar_is_exact_and_fast_for_large_counts(scipy_stats: Any) -> None:
    start = time.perf_counter()
    for b, c in [(5_000, 4_800), (4_800, 5_000), (10_000, 9_700), (300, 200)]:
        one = scipy_stats.binomtest(b, b + c, 0.5, alternative="greater").pvalue
        assert mcnemar_one_sided(b, c) == pytest.approx(one, rel=1e-9)
    assert time.perf_counter() - start < 2.0
    total = sum(math.comb(30, k) for k in range(20, 31))
    assert mcnemar_one_sided(20, 10) == float(Fraction(total, 2**30))
    assert mcnemar_one_sided(0, 0) == 1.0
    assert mcnemar_two_sided(0, 0) == 1.0
    assert mcnemar_two_sided(5, 5) == 1.0


def test_wilson_agrees_with_scipy(scipy_stats: Any) -> None:
    for n in (1, 2, 7, 40, 1000):
        for hits in sorted({0, 1, n // 3, n // 2, n - 1, n}):
            ci = scipy_stats.binomtest(hits, n).proportion_ci(method="wilson")
            low, high = wilson(hits, n)
            assert low == pytest.approx(ci.low, abs=1e-12)
            assert high == pytest.approx(ci.high, abs=1e-12)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0
    assert wilson(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError, match="hits=3, n=2"):
        wilson(3, 2)


def test_holm_against_hand_values() -> None:
    # sorted: 0.005*4 = 0.02, 0.01*3 = 0.03, 0.03*2 = 0.06, 0.04*1 = 0.04 -> held up at 0.06
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, 0.6]) == [1.0, 1.0]
    assert holm([0.2]) == [0.2]
    assert holm([]) == []
    with pytest.raises(ValueError, match="nan"):
        holm([0.1, math.nan])


@given(st.lists(st.floats(0.0, 1.0), max_size=12))
def test_holm_is_monotone_capped_and_never_below_the_raw_p(ps: list[float]) -> None:
    adjusted = holm(ps)
    assert all(p <= a <= 1.0 for p, a in zip(ps, adjusted, strict=True))
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    assert all(adjusted[i] <= adjusted[j] for i, j in itertools.pairwise(order))


# --- the bootstrap interval ------------------------------------------------------------------


def exact_bootstrap_quantiles(n: int, b: int, c: int) -> tuple[float, float]:
    """The 2.5% and 97.5% quantiles of the exact resampling distribution, by enumeration."""
    mass: dict[int, float] = {}
    pb, pc, pu = b / n, c / n, (n - b - c) / n
    for i in range(n + 1):
        for j in range(n + 1 - i):
            p = math.comb(n, i) * math.comb(n - i, j) * pb**i * pc**j * pu ** (n - i - j)
            mass[j - i] = mass.get(j - i, 0.0) + p
    cumulative, low, high = 0.0, None, None
    for delta in sorted(mass):
        cumulative += mass[delta]
        if low is None and cumulative >= 0.025:
            low = delta
        if high is None and cumulative >= 0.975:
            high = delta
    assert low is not None and high is not None
    return low * 100 / n, high * 100 / n


@pytest.mark.parametrize(("n", "b", "c"), [(40, 6, 2), (40, 1, 0), (60, 10, 12), (30, 30, 0)])
def test_interval_matches_the_exact_resampling_distribution(n: int, b: int, c: int) -> None:
    low, high = paired_interval(*pairs(n, n - c, b, c))
    exact_low, exact_high = exact_bootstrap_quantiles(n, b, c)
    step = 100 / n  # Monte Carlo may land one step off a quantile sitting on a boundary
    assert abs(low - exact_low) <= step + 1e-9
    assert abs(high - exact_high) <= step + 1e-9


def test_interval_matches_a_case_by_case_bootstrap() -> None:
    before, after = pairs(300, 200, 25, 10)
    rng = random.Random(7)
    deltas = []
    for _ in range(4000):
        sample = rng.choices(range(300), k=300)
        deltas.append(sum(after[i] - before[i] for i in sample) / 3)
    deltas.sort()
    low, high = paired_interval(before, after)
    step = 100 / 300
    assert low == pytest.approx(deltas[99], abs=step + 1e-9)
    assert high == pytest.approx(deltas[3900], abs=step + 1e-9)


def test_interval_is_deterministic_and_fast_on_10000_cases() -> None:
    before, after = pairs(10_000, 7_000, 600, 450)
    start = time.perf_counter()
    first = paired_interval(before, after)
    elapsed = time.perf_counter() - start
    assert first == paired_interval(before, after)
    assert first != paired_interval(before, after, seed=1)
    assert elapsed < 0.5
    low, high = first
    assert low < -1.5 < high  # -150 / 10000 cases = -1.5 points


def test_interval_covers_the_true_difference_about_95_percent_of_the_time() -> None:
    # 80 paired cases, each regressing with probability 0.10 and improving with 0.05: the true
    # change is -5 points. Rather than sampling data sets, weigh every possible (b, c) by its
    # multinomial probability, so only the bootstrap's own randomness is left in the coverage.
    n, p_regress, p_improve = 80, 0.10, 0.05
    covered = total = 0.0
    for b in range(n + 1):
        for c in range(n + 1 - b):
            weight = (
                math.comb(n, b)
                * math.comb(n - b, c)
                * p_regress**b
                * p_improve**c
                * (1 - p_regress - p_improve) ** (n - b - c)
            )
            if weight < 1e-7:
                continue
            low, high = paired_interval(*pairs(n, n - c, b, c))
            total += weight
            covered += weight * (low <= -5.0 <= high)
    assert total > 0.99999
    assert 0.93 <= covered / total <= 0.97


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 400).flatmap(
        lambda n: st.tuples(st.just(n), st.integers(0, n), st.integers(0, n))
    )
)
def test_interval_contains_the_estimate_and_mirrors_when_swapped(
    case: tuple[int, int, int],
) -> None:
    n, b, c = case
    c = min(c, n - b)
    before, after = pairs(n, n - c, b, c)
    low, high = paired_interval(before, after, resamples=2000)
    assert -100.0 <= low <= (c - b) * 100 / n <= high <= 100.0
    assert paired_interval(after, before, resamples=2000) == (-high, -low)
    assert mcnemar_one_sided(b, c) + mcnemar_one_sided(c, b) >= 1.0
    assert mcnemar_two_sided(b, c) == mcnemar_two_sided(c, b)


# --- sweep rows ------------------------------------------------------------------------------


def test_sweep_rows_against_the_configured_setting() -> None:
    configured, _ = pairs(100, 60, 0, 0)
    rows = [
        pairs(100, 60, 20, 2)[1],  # clearly worse: two-sided p = 2 * P(X >= 20 | 22)
        pairs(100, 60, 3, 4)[1],  # noise
        list(configured),  # the configured setting itself
    ]
    evidence = sweep_evidence(configured, rows)
    worse, noise, itself = evidence
    assert (worse.regressions, worse.improvements, worse.delta_points) == (20, 2, -18.0)
    assert worse.p_value == 2 * (math.comb(22, 20) + 22 + 1) / 2**22
    assert worse.p_holm == pytest.approx(3 * worse.p_value)
    assert worse.significant
    assert noise.p_value == 1.0 and not noise.significant
    assert (itself.p_value, itself.p_holm, itself.delta_points) == (1.0, 1.0, 0.0)
    assert [e.p_holm for e in evidence] == holm([e.p_value for e in evidence])


# --- the cost gate's sign test ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("increases", "decreases"),
    [(0, 0), (1, 0), (6, 0), (5, 1), (3, 3), (10, 2), (2, 10), (40, 25), (0, 17), (150, 120)],
)
def test_the_sign_test_is_scipys_two_sided_binomial_test(
    scipy_stats: Any, increases: int, decreases: int
) -> None:
    n = increases + decreases
    expected = scipy_stats.binomtest(increases, n, 0.5).pvalue if n else 1.0
    assert sign_test(increases, decreases) == pytest.approx(expected, rel=1e-12)


def test_six_increases_and_no_decrease_by_hand() -> None:
    # P(X >= 6) = 1/64 for X ~ Binomial(6, 1/2); two-sided: 2/64
    assert sign_test(6, 0) == 2 / 64


def test_the_context_change_over_cases_hit_in_both_runs() -> None:
    # one tie (dropped by the sign test), three more, one less
    change = ContextChange.of([(100, 100), (80, 160), (80, 160), (80, 160), (160, 80)])
    assert (change.cases, change.increases, change.decreases) == (5, 3, 1)
    assert change.before == 100.0 and change.after == 132.0
    assert change.change_percent == pytest.approx(32.0)
    assert change.p_value == sign_test(3, 1) == 0.625
    assert change.to_json() == {
        "cases": 5,
        "before": 100.0,
        "after": 132.0,
        "change_percent": 32.0,
        "p_value": 0.625,
    }


def test_no_case_hit_in_both_runs_has_no_means() -> None:
    change = ContextChange.of([])
    assert (change.before, change.after, change.change_percent, change.p_value) == (
        None,
        None,
        None,
        1.0,
    )
