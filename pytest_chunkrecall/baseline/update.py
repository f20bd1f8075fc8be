"""Writing the baseline at the end of an updating run: under a lock, over what is on disk now."""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ChunkrecallError
from ..files import locked, not_regular, write_atomically
from ..guard import quoted
from . import saved as baseline
from .saved import Baseline, Entry


@dataclass(frozen=True)
class Written:
    """What an update wrote: the baseline's size, and the cases whose old entry it kept
    because they errored this time (node ids, in order)."""

    size: int
    kept: list[str]

    def kept_line(self) -> str | None:
        """``1 case kept from the old baseline: it errored (gold/x.yaml::fee)``, or ``None``."""
        if not self.kept:
            return None
        count = len(self.kept)
        cases, they = ("1 case", "it") if count == 1 else (f"{count} cases", "they")
        return f"{cases} kept from the old baseline: {they} errored ({', '.join(self.kept)})"


def write_updated(
    path: Path,
    name: str,
    entries: Mapping[str, Mapping[str, Entry]],
    *,
    existing: Mapping[str, set[str] | None],
    setups: Mapping[str, Mapping[str, Any]],
    documents: Mapping[str, Mapping[str, str]] | None = None,
    unevaluated: Iterable[str] = (),
) -> Written:
    """Merge this run's ``entries`` (by gold file, then case id) into the baseline at ``path``
    and write it; returns its size and the entries kept for cases that errored.

    The file is read again under its lock rather than taken from the start of the run:
    another run may have written it since, and its cases must not be lost. Cases that
    ran but were not evaluated (their code raised, their worker crashed) have no verdict
    to put in place of their old entry: it is kept, and :class:`Written` names them.
    Raises :class:`ChunkrecallError` when the file cannot be read or written; it is then
    as it was.
    """
    try:
        with locked(path):
            current = _current(path, name)
            merged = baseline.updated(
                current, entries, existing=existing, setups=setups, documents=documents
            )
            write_atomically(path, baseline.dumps(merged))
    except OSError as exc:
        raise ChunkrecallError(
            f"baseline {quoted(name)} not written: {exc.strerror or exc}; the file is as it was"
        ) from None
    kept = [nodeid for nodeid in unevaluated if merged.get(*_parts(nodeid)) is not None]
    return Written(len(merged), kept)


def _parts(nodeid: str) -> tuple[str, str]:
    gold_file, _, case_id = nodeid.partition("::")
    return gold_file, case_id


def _current(path: Path, name: str) -> Baseline:
    problem = not_regular(path)
    if problem:
        raise ChunkrecallError(f"baseline {quoted(name)} not written: {problem}")
    if not path.exists():
        return Baseline()
    try:
        return baseline.load(path, name=name)
    except ChunkrecallError as exc:
        raise ChunkrecallError(
            f"{exc}\n(it changed during the run; the file was left as it is, nothing was written)"
        ) from None


def accept_command(
    setup_args: list[str], *, baseline_name: str | None, baseline_from_ini: bool
) -> str:
    """The command that reproduces the run and accepts its state as the new baseline."""
    command = baseline.UPDATE
    if baseline_name is not None and not baseline_from_ini:
        command += f" --chunkrecall-baseline {shlex.quote(baseline_name)}"
    if setup_args:
        command += " " + shlex.join(setup_args)
    return command
