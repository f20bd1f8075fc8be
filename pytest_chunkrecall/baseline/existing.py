"""The cases each gold file has now, which name the baseline's removed cases."""

from __future__ import annotations

from pathlib import Path

from ..errors import ChunkrecallError
from ..gold import load
from .saved import Baseline


def existing_cases(
    rootdir: Path, gold_files: set[str], baseline: Baseline | None
) -> dict[str, set[str] | None]:
    """The case ids each gold file of the run (and of the baseline) has now; ``None``: gone."""
    paths = set(gold_files)
    if baseline is not None:
        paths |= {p for p in baseline.cases if not (rootdir / p).exists()}
    existing: dict[str, set[str] | None] = {}
    for path in sorted(paths):
        try:
            existing[path] = {case.id for case in load(rootdir / path, name=path).cases}
        except ChunkrecallError:
            existing[path] = None if not (rootdir / path).exists() else set()
    return existing
