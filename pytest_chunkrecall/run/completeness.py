"""Whether a run covered every case it selected, and what it selected.

A run that stopped early (Ctrl-C, ``-x``, ``--maxfail``, a crashed worker whose
cases never ran) has reports that cover part of its cases, and no marker would
tell them from a whole run: its hit rate is that of the cases that ran first. Such
a report says ``"complete": false`` with the reason, and no gate passes on it.
A deliberate selection (``-k``, ``-m``, node ids, a pytest-split group) is whole:
the report records it under ``selection``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import counted

ALLOW = "--allow-incomplete"


@dataclass(frozen=True)
class Completeness:
    """``complete``, or why not (``reason``) and how many selected cases never ran."""

    complete: bool = True
    reason: str | None = None
    not_run: int = 0
    selected: int | None = None
    selection: dict[str, Any] = field(default_factory=dict)

    def line(self) -> str | None:
        """``the run is incomplete: interrupted; 9 of 12 selected cases never ran``, or ``None``."""
        if self.complete:
            return None
        never_ran = ""
        if self.not_run and self.selected is not None:
            never_ran = f"; {self.not_run} of {counted(self.selected, 'selected case')} never ran"
        elif self.not_run:
            never_ran = f"; {counted(self.not_run, 'case')} never ran"
        return f"the run is incomplete: {self.reason}{never_ran}"

    def to_json(self) -> dict[str, Any]:
        """The report's keys: ``complete``, and ``incomplete`` and ``selection`` where known."""
        data: dict[str, Any] = {"complete": self.complete}
        if not self.complete:
            data["incomplete"] = {"reason": self.reason, "not_run": self.not_run}
        if self.selection:
            data["selection"] = dict(self.selection)
        return data


def of_run(
    *,
    selected: set[str],
    reported: Iterable[str],
    interrupted: bool,
    stopped: str | None,
    crashed: bool,
    selection: Mapping[str, Any],
) -> Completeness:
    """The completeness of a pytest run that selected the cases ``selected`` and got a report
    of each of ``reported``; ``stopped`` is why pytest stopped early (``-x``, ``--maxfail``)."""
    not_run = len(selected - set(reported))
    if not (interrupted or not_run):
        return Completeness(selected=len(selected), selection=dict(selection))
    if interrupted and not stopped:
        reason = "interrupted"
    elif stopped:
        reason = f"stopped early ({stopped})"
    elif crashed:
        reason = "a worker crashed and its cases never ran"
    else:
        reason = "some selected cases never ran"
    return Completeness(False, reason, not_run, len(selected), dict(selection))


def of_report(data: Mapping[str, Any], *, name: str) -> Completeness:
    """What a report read back says of its completeness (a report without the key is whole)."""
    if data.get("complete", True):
        return Completeness(selection=dict(data.get("selection") or {}))
    incomplete = data.get("incomplete")
    incomplete = incomplete if isinstance(incomplete, dict) else {}
    reason = incomplete.get("reason")
    not_run = incomplete.get("not_run")
    return Completeness(
        False,
        f"{name}: {reason if isinstance(reason, str) else 'incomplete'}",
        not_run if isinstance(not_run, int) and not isinstance(not_run, bool) else 0,
    )


def merged(parts: Iterable[Completeness]) -> Completeness:
    """The completeness of shards merged into one report: whole only if every shard is.

    A whole merge selected what its shards did together: their cases summed, and each other
    choice (``-k``, ``-m``, paths) where every shard made the same one. The shards' pytest-split
    groups differ, and the merge is their union, which no one group names."""
    parts = list(parts)
    broken = [part for part in parts if not part.complete]
    if not broken:
        return Completeness(selection=_selection_of_merge([part.selection for part in parts]))
    reason = "; ".join(part.reason or "incomplete" for part in broken)
    return Completeness(False, reason, sum(part.not_run for part in broken))


def refuse(part: Completeness, *, what: str) -> str:
    """The message that refuses to gate (or merge) an incomplete report."""
    return (
        f"{part.reason}: the report is incomplete, and {what} does not gate part of a run; "
        f"run every case again, or give {ALLOW} to {what} it anyway"
    )


def _selection_of_merge(selections: list[dict[str, Any]]) -> dict[str, Any]:
    if not selections or not all(selections):
        return {}
    shared = {
        key: value
        for key, value in selections[0].items()
        if key != "cases" and all(other.get(key) == value for other in selections[1:])
    }
    if len(selections) > 1:
        shared.pop("split", None)
    cases = [selection.get("cases") for selection in selections]
    if all(isinstance(count, int) for count in cases):
        shared = {"cases": sum(cases), **shared}
    return shared
