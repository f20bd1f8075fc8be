"""Writing the baseline at the end of an updating run: under a lock, over what is on disk now."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..errors import ChunkrecallError
from ..files import locked, not_regular, write_atomically
from . import saved as baseline
from .saved import Baseline, Entry


def write_updated(
    path: Path,
    name: str,
    entries: Mapping[str, Mapping[str, Entry]],
    *,
    existing: Mapping[str, set[str] | None],
    setups: Mapping[str, Mapping[str, Any]],
    documents: Mapping[str, Mapping[str, str]] | None = None,
    unevaluated: Iterable[str] = (),
) -> int:
    """Merge this run's ``entries`` (by gold file, then case id) into the baseline at ``path``
    and write it; returns its size.

    The file is read again under its lock rather than taken from the start of the run:
    another run may have written it since, and its cases must not be lost. Cases that
    ran but were not evaluated (their worker crashed, their code raised) lose their old
    entry, which was made under a setup this run may have changed. Raises
    :class:`ChunkrecallError` when the file cannot be read or written; it is then as it was.
    """
    try:
        with locked(path):
            current = _current(path, name)
            merged = baseline.updated(
                current, entries, existing=existing, setups=setups, documents=documents
            )
            merged = without(merged, unevaluated)
            write_atomically(path, baseline.dumps(merged))
    except OSError as exc:
        raise ChunkrecallError(
            f"baseline {name} not written: {exc.strerror or exc}; the file is as it was"
        ) from None
    return len(merged)


def _current(path: Path, name: str) -> Baseline:
    problem = not_regular(path)
    if problem:
        raise ChunkrecallError(f"baseline {name} not written: {problem}")
    if not path.exists():
        return Baseline()
    try:
        return baseline.load(path, name=name)
    except ChunkrecallError as exc:
        raise ChunkrecallError(
            f"{exc}\n(it changed during the run; the file was left as it is, nothing was written)"
        ) from None


def without(old: Baseline, nodeids: Iterable[str]) -> Baseline:
    """``old`` without the entries of the cases ``nodeids`` (``<gold file>::<case id>``)."""
    dropped: dict[str, set[str]] = {}
    for nodeid in nodeids:
        gold_file, _, case_id = nodeid.partition("::")
        dropped.setdefault(gold_file, set()).add(case_id)
    if not dropped:
        return old
    cases = {
        path: {case_id: e for case_id, e in entries.items() if case_id not in dropped.get(path, ())}
        for path, entries in old.cases.items()
    }
    kept = {path: entries for path, entries in cases.items() if entries}
    return replace(old, cases=kept, setups={p: s for p, s in old.setups.items() if p in kept})
