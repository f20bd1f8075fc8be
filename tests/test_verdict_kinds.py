"""The one ordered verdict type: every part of the run reads its members, so a verdict is one member."""

from __future__ import annotations

from dataclasses import replace
from typing import get_args

import pytest

from pytest_chunkrecall.evaluation import verdicts
from pytest_chunkrecall.evaluation.repeat import severity
from pytest_chunkrecall.evaluation.results import Totals, verdict_counts
from pytest_chunkrecall.evaluation.verdict import decide
from pytest_chunkrecall.evaluation.verdicts import KINDS, VERDICTS, Verdict
from pytest_chunkrecall.render.failure import explain
from pytest_chunkrecall.run.fold import Funnel

from .conftest import a_hit


def test_the_verdict_names_are_the_members_in_report_order() -> None:
    assert get_args(Verdict) == VERDICTS
    assert VERDICTS == (
        "hit",
        "split",
        "ranked_out",
        "absent",
        "unparsed",
        "reranked_out",
        "leaked",
    )


def test_each_member_has_its_own_place_in_the_decision_and_in_severity() -> None:
    assert len({kind.precedence for kind in KINDS}) == len(KINDS)
    assert len({kind.severity for kind in KINDS}) == len(KINDS)
    assert [kind.name for kind in KINDS if kind.passes] == ["hit"]


def test_the_funnel_loses_each_verdict_at_its_stage() -> None:
    counts = verdict_counts(["hit"] * 5 + ["split", "absent", "absent", "unparsed"])
    counts.update(ranked_out=3, reranked_out=4)
    funnel = Funnel.of(Totals(sum(counts.values()), 5, 1, counts))
    assert funnel.to_json() == {
        "cases": 16,
        "loaded": 15,
        "whole": 12,
        "candidates": 9,
        "top_k": 5,
    }
    assert list(funnel.lost) == ["unparsed", "split", "absent", "ranked_out", "reranked_out"]


def test_a_leak_is_lost_after_the_top_k_and_listed_last() -> None:
    """A chunk that must not come back did: the case reached the top k, and fails there."""
    counts = verdict_counts(["hit", "hit", "split", "leaked"])
    funnel = Funnel.of(Totals(4, 2, 1, counts))
    assert (funnel.whole, funnel.candidates, funnel.top_k) == (3, 3, 2)
    assert list(funnel.lost) == ["split", "leaked"]


@pytest.mark.parametrize(
    ("arguments", "verdict"),
    [
        ({"ranks": [None], "absent": True, "whole": [False], "unparsed": True}, "unparsed"),
        ({"ranks": [1], "absent": True, "whole": [True]}, "absent"),
        ({"ranks": [1, 2], "absent": False, "whole": [True, True]}, "hit"),
        ({"ranks": [1, None], "absent": False, "whole": [True, False]}, "split"),
        (
            {"ranks": [None], "absent": False, "whole": [True], "candidate_ranks": [None]},
            "ranked_out",
        ),
        (
            {"ranks": [None], "absent": False, "whole": [True], "candidate_ranks": [7]},
            "reranked_out",
        ),
        ({"ranks": [None], "absent": False, "whole": [False], "candidate_ranks": [7]}, "split"),
        ({"ranks": [None], "absent": False, "whole": [True]}, "ranked_out"),
        ({"ranks": [1], "absent": False, "whole": [True], "leaked": True}, "leaked"),
        (
            {"ranks": [None], "absent": True, "whole": [False], "unparsed": True, "leaked": True},
            "leaked",
        ),
    ],
)
def test_decide_takes_the_first_verdict_that_holds(arguments, verdict) -> None:
    assert decide(**arguments) == verdict


def test_a_failure_message_explains_each_miss_with_its_member() -> None:
    for kind in KINDS:
        if kind.passes:
            continue
        reranker = "rr" if kind.name == "reranked_out" else None
        result = replace(a_hit(), verdict=kind.name, rank=None, reranker=reranker)
        why = kind.why.format(k=result.k, reranker="rr")
        assert why in explain(result)


def test_the_worst_repeat_is_the_most_severe_member() -> None:
    worst = max(KINDS, key=lambda kind: kind.severity)
    assert worst.name == "leaked"
    ordered = sorted(VERDICTS, key=lambda name: severity(replace(a_hit(), verdict=name)))
    assert ordered == list(verdicts.SEVERITY)
    assert ordered[0] == "hit"
