"""A case asked several times (``chunkrecall_repeat``): its worst result, and whether it is stable.

A retriever whose ties are broken by set or dict order, an approximate index, a
remote service: the same question need not get the same top k twice. A case
whose verdict or holding rank differs between repeats is *unstable*, and its
outcome is the worst result seen, so that a gate never passes on a lucky draw.

Severity, from best to worst (:data:`SEVERITY`): ``hit``, ``reranked_out``,
``ranked_out``, ``split``, ``unparsed``, ``absent``. A miss is worse than a hit;
among misses, the earlier the stage that lost the case, the worse (a span the
reranker dropped was at least among the candidates). Within one verdict a larger
holding rank is worse, and no holding rank (deeper than looked) worst of all.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import replace

from ..errors import SHOWN_CHARS
from .results import CaseResult
from .verdicts import SEVERITY as SEVERITY
from .verdicts import kind_of


def severity(result: CaseResult) -> tuple[int, float]:
    """How bad ``result`` is: its verdict's place in :data:`SEVERITY`, then its holding rank
    (``None``, deeper than looked, counts as infinitely deep)."""
    rank = result.holding_rank if result.holding_rank is not None else result.rank
    return kind_of(result.verdict).severity, math.inf if rank is None else rank


def unstable(results: Sequence[CaseResult]) -> bool:
    """Whether the repeats of one case differ in verdict, rank or holding rank (or one of
    them was itself an unstable case's combined result)."""
    differ = len({(r.verdict, r.rank, r.holding_rank) for r in results}) > 1
    return differ or any(r.unstable for r in results)


def worst(results: Sequence[CaseResult]) -> int:
    """The index of the worst of ``results`` (the first of equally bad ones)."""
    return max(range(len(results)), key=lambda index: severity(results[index]))


def ranks_seen(result: CaseResult) -> list[int | None]:
    """The rank in each repeat of ``result``: its own rank (``None``: it missed the top k),
    or the ranks a combined result saw."""
    if result.ranks_seen is not None:
        return list(result.ranks_seen)
    return [result.rank if result.hit else None]


def combined(results: Sequence[CaseResult]) -> CaseResult:
    """The result of a case asked ``len(results)`` times, in the order asked.

    One result is returned as it is. Of several, the worst (see :func:`worst`), with
    ``unstable`` and ``ranks_seen``: each repeat's rank, ``None`` where it missed the top
    k. A result that combines repeats already (a report of a run with
    ``chunkrecall_repeat``) counts as the repeats it combines.
    """
    if not results:
        raise ValueError("a case is asked at least once")
    if len(results) == 1:
        return results[0]
    return replace(
        results[worst(results)],
        unstable=unstable(results),
        ranks_seen=[rank for result in results for rank in ranks_seen(result)],
        varied=varied(results),
    )


def varied(results: Sequence[CaseResult]) -> str:
    """What differed between the repeats that their ranks do not say, in words: ``verdict
    ranked_out 2 times, split; holding rank 7, 12, 7``, or ``""`` when nothing did.

    Each of the verdict, the holding rank and the chunk (the one that answered a hit,
    else the first that holds the span) is listed, repeat by repeat, when two repeats
    with the same rank seen (two misses, say) differ in it. A result that combines
    repeats already adds what varied within it.
    """
    seen = [tuple(ranks_seen(result)) for result in results]
    said = [
        f"{what} {_in_order(values)}"
        for what, values in (
            ("verdict", [result.verdict for result in results]),
            ("holding rank", [_holding_rank(result) for result in results]),
            ("chunk", [_chunk(result) for result in results]),
        )
        if len(set(zip(seen, values, strict=True))) > len(set(seen))
    ]
    said += [result.varied for result in results if result.varied]
    return "; ".join(dict.fromkeys(said))


def _holding_rank(result: CaseResult) -> str:
    rank = result.holding_rank if result.holding_rank is not None else result.rank
    return "deeper than looked" if rank is None else str(rank)


def _chunk(result: CaseResult) -> str:
    if result.rank is not None and result.rank <= len(result.retrieved_ids):
        answered = result.retrieved_ids[result.rank - 1]
        if answered is not None:
            return answered
    return result.holding_ids[0] if result.holding_ids else "none"


def _in_order(values: Sequence[str]) -> str:
    """``a 2 times, b, a``: each repeat's value in the order asked, a run of equal ones counted."""
    runs = [(value, len(list(run))) for value, run in itertools.groupby(values)]
    return ", ".join(value if count == 1 else f"{value} {count} times" for value, count in runs)


def ranks_text(ranks_seen: Sequence[int | None]) -> str:
    """``1, 3, missed``: the ranks of a case's repeats, as a message says them; past about
    :data:`SHOWN_CHARS` characters, the first of them and how many there were (a report
    read back may hold any number)."""
    words: list[str] = []
    length = 0
    for rank in ranks_seen:
        word = "missed" if rank is None else str(rank)
        length += len(word) + 2
        if length > SHOWN_CHARS:
            return ", ".join(words) + f", … ({len(ranks_seen):,} repeats)"
        words.append(word)
    return ", ".join(words)
