"""A context budget: how much of the top k a case may read, and whether the budget lost it."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import replace

from ..gold import Case
from ..retrieval.shapes import Retrieved
from .finder import Finder
from .results import CaseResult
from .units import holding_rank


def within_budget(
    results: Sequence[Retrieved], budget: int | None, length: Callable[[str], int]
) -> list[Retrieved]:
    """The results a reader with ``budget`` units of context reads: in rank order while
    their total length fits the budget, and the first always. ``None``: all of them."""
    if budget is None or not results:
        return list(results)
    taken = [results[0]]
    total = length(results[0].text)
    for result in results[1:]:
        total += length(result.text)
        if total > budget:
            break
        taken.append(result)
    return taken


def past_budget(
    result: CaseResult,
    case: Case,
    top: Sequence[Retrieved],
    finder: Finder,
    *,
    budget: int,
    docs: Collection[str] | None = None,
) -> CaseResult:
    """``result`` (a ranked_out case judged on the chunks within ``budget``) with
    ``past_budget_rank``: the rank in the whole top k (``top``) by which every unit is
    held whole, when the top k holds it and the budget cut it off."""
    found, _ = holding_rank(case, top, finder, docs)
    return replace(result, budget=budget, past_budget_rank=found)
