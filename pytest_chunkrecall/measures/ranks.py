"""Ranking measures over a set of evaluated cases, from the rank each hit came back at.

Each is a small pure function with its formula; the names other tools give them
are in the manual, docs/verdicts.md (LlamaIndex's ``hit_rate`` and ``mrr``, ranx's
``hit_rate@k`` and ``mrr``).
"""

from __future__ import annotations

from collections.abc import Sequence


def mrr(ranks: Sequence[int | None], k: int | None = None) -> float:
    """Mean reciprocal rank: (1/N) Σ 1/rank_i, with 0 for a miss (``None``) or a rank past ``k``.

    N counts every case, misses included; 0.0 for no cases.
    """
    if not ranks:
        return 0.0
    total = sum(1 / rank for rank in ranks if rank is not None and (k is None or rank <= k))
    return total / len(ranks)


def hit_rate_at(ranks: Sequence[int | None], largest: int) -> dict[str, float]:
    """Hit-rate at each cut-off r = 1..``largest``: |{i : rank_i <= r}| / N, keyed ``"1"``…``"<largest>"``."""
    cases = len(ranks)
    found = sorted(rank for rank in ranks if rank is not None)
    shares: dict[str, float] = {}
    held = 0
    for r in range(1, largest + 1):
        while held < len(found) and found[held] <= r:
            held += 1
        shares[str(r)] = held / cases if cases else 0.0
    return shares
