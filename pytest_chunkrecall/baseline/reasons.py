"""The gate's sentences: what the terminal, the Markdown and the HTML page say of its decision.

The decision itself is :mod:`.decision`'s and the policy :mod:`.policy`'s; the statistics
are :mod:`..measures.statistics`'. Here they become the lines a person reads.
"""

from __future__ import annotations

from ..errors import counted
from ..measures.statistics import ContextChange, PairedComparison, mcnemar_one_sided
from .policy import GateSettings
from .saved import Comparison, Entry

ABSENT_NAMED = 10
"""How many failed ``absent`` cases the line that says why the run fails names."""


def gate_line(paired: PairedComparison, settings: GateSettings) -> str:
    """The sentence that says whether the gate fails the run, and why: the one line the
    terminal, the Markdown and the HTML page all show.

    ``chunkrecall gate: 5 improvements, 0 regressions: better (McNemar exact, one-sided
    p = 0.031 < 0.05); hit-rate …; the gate passes``.
    """
    b, c = paired.regressions, paired.improvements
    low, high = paired.ci95_points
    line = (
        f"chunkrecall gate: {counted(c, 'improvement')}, {counted(b, 'regression')}: "
        f"{evidence(paired, alpha=settings.alpha)}; hit-rate {paired.hit_rate_before:.1%} -> "
        f"{paired.hit_rate_after:.1%} over {counted(paired.cases, 'compared case')} "
        f"({paired.delta_points + 0.0:+.1f} pts, "
        f"95% CI [{low + 0.0:.1f}, {high + 0.0:.1f}]); "
    )
    return line + _gate_decision(paired, settings)


def _gate_decision(paired: PairedComparison, settings: GateSettings) -> str:
    if settings.gate == "cases":
        if settings.fails(paired):
            return "the gate fails: gate 'cases' fails on every regression"
        return "the gate passes: no regressions"
    if paired.decision != "worse":
        return "the gate passes"
    if settings.under_min_effect(paired):
        return (
            f"the drop of {-paired.delta_points:.1f} pts is under the minimum effect of "
            f"{settings.min_effect:g} pts: the gate passes"
        )
    return "the gate fails"


def evidence(paired: PairedComparison, *, alpha: float) -> str:
    """What the exact one-sided McNemar tests say of the change, with their p-values:
    ``better (McNemar exact, one-sided p = 0.031 < 0.05)``.

    ``worse`` reads P(X >= b), ``better`` P(X >= c), X ~ Binomial(b + c, 1/2); with n
    changed cases neither can fall below 0.5**n, which is what "too few" means.
    """
    b, c = paired.regressions, paired.improvements
    worse, better = mcnemar_one_sided(b, c), mcnemar_one_sided(c, b)
    if paired.decision == "worse":
        return f"worse (McNemar exact, one-sided p = {p_text(worse)} < {alpha:g})"
    if paired.decision == "better":
        return f"better (McNemar exact, one-sided p = {p_text(better)} < {alpha:g})"
    if paired.decision == "no_difference":
        return (
            f"no significant change (McNemar exact, one-sided: worse p = {p_text(worse)}, "
            f"better p = {p_text(better)}, neither < {alpha:g})"
        )
    n = b + c
    if not n:
        return (
            "nothing changed (no case went from hit to miss or back: McNemar has nothing to test)"
        )
    return (
        f"too few changed cases to tell (McNemar exact: with {counted(n, 'changed case')} "
        f"the one-sided p is at least {p_text(0.5**n)}, not < {alpha:g})"
    )


def p_text(p: float) -> str:
    """A p-value to three decimals, or to two significant digits below 0.001."""
    return f"{p:.3f}" if p >= 0.001 else f"{p:.1e}"


def below_floor(hit_rate: float, floor: float) -> str:
    """Why the run fails ``chunkrecall_min_hit_rate``."""
    return f"hit-rate {hit_rate:.1%} is below chunkrecall_min_hit_rate {floor:.1%}"


def significant_drop(paired: PairedComparison, settings: GateSettings, name: str) -> str:
    """Why the run fails gate ``significant`` against baseline ``name``."""
    return (
        f"hit-rate against baseline {name} is "
        f"{evidence(paired, alpha=settings.alpha)}, a drop of "
        f"{-paired.delta_points:.1f} pts (chunkrecall_min_effect is "
        f"{settings.min_effect:g})"
    )


def too_large_drop(comparison: Comparison, limit: float) -> str:
    """Why the run fails ``chunkrecall_max_drop``."""
    return (
        f"hit-rate fell {comparison.drop_points:.1f} points against the baseline on the "
        f"{comparison.common} cases both have (chunkrecall_max_drop is {limit:g})"
    )


def context_growth(change: ContextChange, limit: float, unit: str) -> str:
    """Why the run fails ``chunkrecall_max_context_growth``."""
    return (
        f"context to the answer grew {change.change_percent:.1f}% against the baseline "
        f"({change.before:,.0f} -> {change.after:,.0f} {unit}) on the {change.cases} cases hit "
        f"in both runs (sign test p={change.p_value:.4g}; chunkrecall_max_context_growth is "
        f"{limit:g}%)"
    )


def cost_line(change: ContextChange, *, alpha: float, unit: str) -> str | None:
    """``context to the answer: 30.0% more (640 -> 832 chars) over 12 cases hit in both runs
    (sign test p=0.0005): a regression in cost``; ``None``: no case was hit in both runs."""
    if change.before is None or change.after is None or change.change_percent is None:
        return None
    percent = abs(change.change_percent)
    more = f"{percent:.1f}% {'more' if change.change_percent > 0 else 'less'}"
    if round(percent, 1) == 0:
        more = "unchanged"
    if not change.significant(alpha):
        verdict = "no significant change in cost"
    elif change.change_percent > 0:
        verdict = "a regression in cost"
    else:
        verdict = "an improvement in cost"
    return (
        f"context to the answer: {more} "
        f"({change.before:,.0f} -> {change.after:,.0f} {unit}) over "
        f"{change.cases} {'case' if change.cases == 1 else 'cases'} hit in both runs "
        f"(sign test p={change.p_value:.4g}): {verdict}"
    )


def foreign_baseline(name: str, size: int, gold_files: list[str]) -> str:
    """What to ask when none of the run's gold files is in baseline ``name``."""
    return (
        f"none of this run's gold files is in baseline {name} "
        f"(it has {size} cases of {', '.join(gold_files)}): "
        "is it this project's baseline?"
    )


def tolerated_regression(entry: Entry, verdict: str) -> str:
    """Why a regression is an expected failure under gate ``significant``."""
    return (
        f"regression ({entry} in the baseline, now {verdict}); with "
        "chunkrecall_gate = significant the total decides whether the run fails"
    )


def absent_reason(count: int, named: list[str]) -> str | None:
    """``exit 1: 2 absent cases (gold-data errors): it-WRONG, hr-WRONG``, or ``None``: none.

    An ``absent`` case fails whatever the baseline holds (a needle the corpus lacks is
    the gold file's error, never a miss to accept), so a run whose gate passes can still
    fail; this line says why. ``named`` holds the first :data:`ABSENT_NAMED` of them.
    """
    if not count:
        return None
    shown = ", ".join(named[:ABSENT_NAMED])
    if count > len(named[:ABSENT_NAMED]):
        shown += f" and {count - len(named[:ABSENT_NAMED]):,} more"
    return f"exit 1: {counted(count, 'absent case')} (gold-data errors): {shown}"
