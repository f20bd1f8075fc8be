"""The gate policy: how a run is gated against its baseline and its floors."""

from __future__ import annotations

from dataclasses import dataclass

from ..config.table import Gate
from ..measures.statistics import ContextChange, PairedComparison


@dataclass(frozen=True)
class GateSettings:
    """How the run is gated: ``chunkrecall_gate``, ``_alpha``, ``_min_effect``, ``_max_drop``,
    ``_min_hit_rate``, ``_max_context_growth``."""

    gate: Gate = "cases"
    alpha: float = 0.05
    min_effect: float = 0.0
    max_drop: float | None = None  # None: not set; 0 under gate "cases", off under "significant"
    min_hit_rate: float | None = None
    max_context_growth: float | None = None  # percent; None: no limit

    @property
    def drop_limit(self) -> float | None:
        """The largest drop in points the run may show, or ``None``: no limit.

        Unset, it is 0 under gate ``cases`` (every lost hit counts) and no limit under
        ``significant``, whose point is to let a drop within noise pass.
        """
        if self.max_drop is not None:
            return self.max_drop
        return 0.0 if self.gate == "cases" else None

    def fails(self, paired: PairedComparison) -> bool:
        """Whether the paired comparison with the baseline fails the gate.

        Gate ``cases`` fails on any regression; ``significant`` only on a ``worse``
        decision with a drop of at least ``min_effect`` points.
        """
        if self.gate == "cases":
            return paired.regressions > 0
        return paired.decision == "worse" and not self.under_min_effect(paired)

    def context_grew(self, change: ContextChange) -> bool:
        """Whether the context to the answer grew past ``max_context_growth`` percent, with a
        sign test below ``alpha``."""
        limit = self.max_context_growth
        return (
            limit is not None
            and change.change_percent is not None
            and change.change_percent > limit
            and change.significant(self.alpha)
        )

    def under_min_effect(self, paired: PairedComparison) -> bool:
        """Whether the drop is smaller than ``min_effect`` (a drop shown as 2.5 points meets
        a minimum of 2.5)."""
        return -paired.delta_points + 1e-9 < self.min_effect
