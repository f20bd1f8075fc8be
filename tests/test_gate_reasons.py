"""The gate's policy and its sentence: whether a paired comparison fails the gate, said once
for the terminal, the Markdown and the HTML page."""

from __future__ import annotations

from pytest_chunkrecall.baseline.policy import GateSettings
from pytest_chunkrecall.baseline.reasons import gate_line
from pytest_chunkrecall.measures.statistics import PairedComparison, compare_pairs

from .test_statistics import pairs


def decided(cmp: PairedComparison, settings: GateSettings) -> tuple[bool, str]:
    """Whether the gate fails, and the line that says so."""
    return settings.fails(cmp), gate_line(cmp, settings)


EXAMPLE = PairedComparison(200, 8, 3, 0.8, 0.775, -2.5, (-5.0, 0.0), 232 / 2048, "no_difference")


def test_gate_line_for_the_worked_example() -> None:
    fails, line = decided(EXAMPLE, GateSettings("significant", 0.05, 0.0))
    assert not fails
    # better: P(X >= 3 | 11) = 1 - (1 + 11 + 55) / 2048 = 0.967
    assert line == (
        "chunkrecall gate: 3 improvements, 8 regressions: no significant change "
        "(McNemar exact, one-sided: worse p = 0.113, better p = 0.967, neither < 0.05); "
        "hit-rate 80.0% -> 77.5% over 200 compared cases (-2.5 pts, 95% CI [-5.0, 0.0]); "
        "the gate passes"
    )


def test_gate_line_when_worse() -> None:
    cmp = compare_pairs(*pairs(200, 160, 12, 1))
    fails, line = decided(cmp, GateSettings("significant", 0.05, 5.5))
    assert fails
    assert line.startswith(
        "chunkrecall gate: 1 improvement, 12 regressions: worse "
        "(McNemar exact, one-sided p = 0.002 < 0.05); "
        "hit-rate 80.0% -> 74.5% over 200 compared cases (-5.5 pts, 95% CI ["
    )
    assert line.endswith("]); the gate fails")
    fails, line = decided(cmp, GateSettings("significant", 0.05, 6))
    assert not fails
    assert line.endswith(
        "]); the drop of 5.5 pts is under the minimum effect of 6 pts: the gate passes"
    )


def test_gate_line_for_the_cases_gate() -> None:
    fails, line = decided(EXAMPLE, GateSettings("cases", 0.05, 0.0))
    assert fails
    assert line.endswith("]); the gate fails: gate 'cases' fails on every regression")
    clean = compare_pairs(*pairs(40, 20, 0, 1))
    fails, line = decided(clean, GateSettings("cases", 0.05, 0.0))
    assert not fails
    assert line.startswith(
        "chunkrecall gate: 1 improvement, 0 regressions: too few changed cases to tell "
        "(McNemar exact: with 1 changed case the one-sided p is at least 0.500, not < 0.05); "
    )
    assert line.endswith("]); the gate passes: no regressions")


def test_gate_line_when_better_names_the_test_and_its_direction() -> None:
    cmp = compare_pairs(*pairs(40, 20, 0, 5))
    fails, line = decided(cmp, GateSettings("significant", 0.05, 0.0))
    assert not fails
    # P(X >= 5 | 5) = 1/32
    assert line.startswith(
        "chunkrecall gate: 5 improvements, 0 regressions: better "
        "(McNemar exact, one-sided p = 0.031 < 0.05); hit-rate 50.0% -> 62.5% over 40 "
        "compared cases (+12.5 pts"
    )
    cmp = compare_pairs(*pairs(100, 50, 0, 20))
    fails, line = decided(cmp, GateSettings("significant", 0.01, 0.0))
    assert "better (McNemar exact, one-sided p = 9.5e-07 < 0.01)" in line
