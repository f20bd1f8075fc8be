"""Where a run was made: the plugin's version and the commit of the rootdir's git work tree.

A report records it so that ``merge`` can refuse shards made from different code: their
cases would add up to a run that never happened.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TypedDict

from ..errors import ChunkrecallError, shown

KEY = "source"
_COMMIT = re.compile("[0-9a-f]{40,64}")  # as the report's schema has it
_VERSION = re.compile("[0-9A-Za-z][0-9A-Za-z.+!_-]{0,63}")  # PEP 440's characters
GIT_TIMEOUT = 5.0  # seconds; a slow or hung git costs the report its commit, never the run


class SourceJSON(TypedDict):
    """The report's ``source``: the plugin's version and the commit, null outside a git tree."""

    version: str | None
    commit: str | None


def of_run(rootdir: Path) -> SourceJSON:
    """The source of a run whose rootdir is ``rootdir``."""
    from .. import __version__  # the package's one version, read when the run ends

    return {"version": __version__, "commit": git_commit(rootdir)}


def git_commit(rootdir: Path) -> str | None:
    """``git rev-parse HEAD`` in ``rootdir``; None without git, outside a work tree, before the
    first commit, or when git does not answer within :data:`GIT_TIMEOUT`."""
    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=rootdir,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    commit = done.stdout.strip()
    return commit if done.returncode == 0 and commit else None


def of_report(data: Mapping[str, Any], *, name: str, required: bool = False) -> SourceJSON | None:
    """The ``source`` a report (named ``name``) records; None for a report older than the key,
    unless it is ``required`` (a shard to merge: what it was run from decides whether it may).

    Raises :class:`ChunkrecallError` when the key holds something else: a commit is a git
    commit id and a version a version number, since messages print them as they are.
    """
    found = data.get(KEY)
    if found is None and required:
        raise ChunkrecallError(
            f"{name} has no 'source' (the version and commit it was run from), which every "
            "shard to merge needs: it was written by an older pytest-chunkrecall, or edited; "
            "write it again with --chunkrecall-report"
        )
    if found is None:
        return None
    if not (
        isinstance(found, dict)
        and all(isinstance(found.get(key), (str, type(None))) for key in ("version", "commit"))
    ):
        raise ChunkrecallError(
            f"{name} is damaged: 'source' must be an object with a version and a commit, each a "
            "string or null; write it again with --chunkrecall-report"
        )
    commit, version = found.get("commit"), found.get("version")
    for key, value, pattern, shape in (
        ("commit", commit, _COMMIT, "a git commit id (40 to 64 hexadecimal digits)"),
        ("version", version, _VERSION, "a version number, such as 1.2.0"),
    ):
        if value is not None and not pattern.fullmatch(value):
            raise ChunkrecallError(
                f"{name} is damaged: the {key} of 'source' is {shown(value)}; it must be "
                f"{shape} or null; write it again with --chunkrecall-report"
            )
    return {"version": version, "commit": commit}


def merged(
    sources: Sequence[tuple[str, SourceJSON | None]], *, allow_mixed: bool
) -> SourceJSON | None:
    """The source of the run that the shards (``(name, source)`` each) are parts of.

    A shard with no source, or a null value, agrees with any. Raises :class:`ChunkrecallError`,
    naming two shards and their values, when two differ in their commit or their version, unless
    ``allow_mixed``; then a value that differs is null in the result.
    """
    known = [(name, source) for name, source in sources if source is not None]
    if not known:
        return None
    # the commit first: a version differs only where the commit does too, as a rule
    commit = _agreed([(name, s["commit"]) for name, s in known], "commits", allow_mixed)
    version = _agreed(
        [(name, s["version"]) for name, s in known], "pytest-chunkrecall versions", allow_mixed
    )
    return {"version": version, "commit": commit}


def _agreed(values: Sequence[tuple[str, str | None]], what: str, allow_mixed: bool) -> str | None:
    """The one value the shards (``(name, value)`` each) share, null ones aside."""
    seen: dict[str, str] = {}  # value -> the first shard with it
    for name, value in values:
        if value is not None:
            seen.setdefault(value, name)
    if len(seen) > 1 and not allow_mixed:
        (a, first), (b, second) = list(seen.items())[:2]
        raise ChunkrecallError(
            f"{first} and {second} were run from different {what} ({a} and {b}); run every "
            "shard from the same one, or give --allow-mixed to merge them anyway"
        )
    return next(iter(seen)) if len(seen) == 1 else None
