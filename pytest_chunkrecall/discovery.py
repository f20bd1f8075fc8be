"""Which YAML files in a ``gold`` folder are gold files, decided from their top-level keys.

A ``gold`` folder is a common name: snapshot tests keep expected API responses in
``tests/gold/*.yaml`` too. Only a mapping with ``cases`` or another gold-file key is
claimed, or one whose key looks like a misspelt ``cases`` (so that the author hears
of it). The keys are read from the parser's events, never by building the document,
so a file of any size (or an alias bomb) costs a glance.
"""

from __future__ import annotations

import fnmatch
import glob
import os
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

import yaml

from .config.settings import did_you_mean
from .errors import counted
from .files import not_regular
from .gold import FILE_KEYS

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_CASES_LINE = re.compile(r"^cases\s*:", re.MULTILINE)
# What python -m pytest_chunkrecall import writes for answers it could not place.
_NOT_GOLD = "unresolved"


def collected_as_gold(path: Path, rootdir: Path, chosen: set[Path] | None) -> bool:
    """Whether the run collects the YAML file at ``path`` as a gold file.

    ``chosen`` is what the ``chunkrecall_gold`` patterns match (resolved paths),
    or ``None`` for the default: a gold file inside a folder named ``gold``.
    A file named on the command line is collected as well; that is the caller's
    to check, since only it knows the arguments.
    """
    if path.suffix not in (".yaml", ".yml"):
        return False
    if chosen is not None:
        return path.resolve() in chosen
    parts = path.parent.relative_to(rootdir).parts if path.is_relative_to(rootdir) else ()
    # a snapshot test's YAML in a folder named gold is left alone
    return "gold" in parts and is_gold_file(path)


def gold_pattern_problem(pattern: str, matches: list[Path], rootdir: Path) -> str | None:
    """What is wrong with the ``chunkrecall_gold`` pattern ``pattern``, which matches the
    (resolved) paths ``matches``: that it matches nothing pytest collects, or ``None``.

    pytest walks the rootdir only: a file the pattern finds outside it is never collected.
    """
    root = rootdir.resolve()
    outside = [path for path in matches if not path.is_relative_to(root)]
    head = f"chunkrecall_gold pattern {pattern!r}"
    if not matches:
        return f"{head} matches no file under {rootdir}"
    if not outside:
        return None
    where = "outside the rootdir, where pytest does not collect"
    if len(outside) == len(matches):
        lie = "lies" if len(outside) == 1 else "lie"
        found = f"the {counted(len(outside), 'file')} it matches {lie}"
        return f"{head} matches no file under {rootdir}: {found} {where}"
    found = f"{len(outside):,} of the {counted(len(matches), 'file')} it matches lie"
    return f"{head}: {found} {where}, such as {outside[0]}"


# The folders pytest does not walk by default (its norecursedirs), by name.
_NOT_WALKED = ("*.egg", ".*", "_darcs", "build", "CVS", "dist", "node_modules", "venv", "{arch}")


def gold_files_of(rootdir: Path, patterns: Sequence[str], testpaths: Sequence[str]) -> list[Path]:
    """The gold files a pytest run in ``rootdir`` collects without arguments, sorted.

    ``patterns`` are the ``chunkrecall_gold`` globs (relative to the rootdir; empty for
    the default discovery), and ``testpaths`` the folders pytest starts from (empty: the
    rootdir). Folders pytest does not walk by default, and virtual environments, are skipped.
    """
    root = rootdir.resolve()
    chosen = (
        {
            Path(match).resolve()
            for pattern in patterns
            for match in glob.glob(str(root / pattern), recursive=True)
        }
        if patterns
        else None
    )
    starts = [Path(found) for path in testpaths for found in glob.glob(str(root / path))]
    found = {
        path
        for start in starts or [root]
        for path in _walked(start)
        if collected_as_gold(path, root, chosen)
    }
    return sorted(found)


def _walked(start: Path) -> Iterator[Path]:
    """The YAML files at or below ``start``, in the folders pytest walks."""
    if start.is_file():
        yield start.resolve()
        return
    for folder, folders, files in os.walk(start):
        folders[:] = sorted(
            name
            for name in folders
            if not any(fnmatch.fnmatch(name, skipped) for skipped in _NOT_WALKED)
            and not (Path(folder) / name / "pyvenv.cfg").exists()
        )
        for name in sorted(files):
            if name.endswith((".yaml", ".yml")):
                yield (Path(folder) / name).resolve()


_BINARY_PROBE = 8192  # bytes read to tell a binary file from text


def gold_path_problem(path: Path) -> str | None:
    """Why ``path``, given on a command line as a gold file, cannot be read as one (it does
    not exist, is a folder, a FIFO or another special file, or holds binary data), or ``None``.

    A FIFO is refused before it is opened: reading one waits for a writer for ever.
    """
    if not path.exists():
        return f"gold file {path} does not exist; give the path of a gold YAML file"
    if path.is_dir():
        return (
            f"gold file {path} is a folder, not a file; give the gold YAML files in it, "
            f"e.g. {path / '*.yaml'}"
        )
    kind = not_regular(path)
    if kind is not None:
        return f"gold file {path}: {kind}; give the path of a gold YAML file"
    try:
        with path.open("rb") as handle:
            head = handle.read(_BINARY_PROBE)
    except OSError as exc:
        return f"gold file {path} cannot be read: {exc.strerror or exc}"
    if b"\0" in head:
        return (
            f"gold file {path} is a binary file, not YAML text; give the path of a gold YAML file"
        )
    return None


def is_gold_file(path: Path) -> bool:
    """Whether the default discovery collects the YAML file at ``path``."""
    return _examined(path)[0]


def not_collected_because(path: Path, rootdir: Path) -> str | None:
    """Why the YAML file at ``path`` in a ``gold`` folder, which the default discovery
    leaves alone, looks like a gold file gone wrong: it is empty, or holds a list.

    ``None`` for a gold file, and for a mapping without gold-file keys (a snapshot
    test's fixture), which is left alone without a word.
    """
    if path.suffix not in (".yaml", ".yml") or not path.is_relative_to(rootdir):
        return None
    if "gold" not in path.parent.relative_to(rootdir).parts:
        return None
    collected, shape = _examined(path)
    if collected or shape not in _SAID:
        return None
    return (
        f"{path.relative_to(rootdir).as_posix()} {_SAID[shape]}; it is not collected as a gold file"
    )


class GoldWarning(UserWarning):
    """A YAML file in a ``gold`` folder that is not collected, though it may be meant to be."""


# What the top level of a YAML document is, beside a mapping: nothing at all, or a list.
_SAID = {
    "empty": "is empty",
    "list": "holds a list, not a mapping with 'cases:'",
}


def _examined(path: Path) -> tuple[bool, str]:
    """Whether the default discovery collects ``path``, and the shape of its top level."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return True, "unreadable"  # let the collector say what is wrong with it
    keys, shape = _top_level(text)
    if keys is None:
        # not YAML at all: a gold file with a syntax error still says 'cases:'
        return bool(_CASES_LINE.search(text)), shape
    if not keys or (_NOT_GOLD in keys and "cases" not in keys):
        return False, shape
    return any(key in FILE_KEYS or did_you_mean(key, ("cases",)) for key in keys), shape


def _top_level(text: str) -> tuple[list[str] | None, str]:
    """The top-level mapping's scalar keys (``[]`` for any other document, ``None``: not
    YAML), and what the top level is: ``"mapping"``, ``"list"``, ``"scalar"``, ``"empty"``
    (no document, or comments only) or ``"not YAML"``.

    The keys end at ``cases``, which settles that the file is a gold file: its cases,
    most of the file, are not read through.
    """
    keys: list[str] = []
    depth, at_key = 0, True
    try:
        for event in yaml.parse(text, Loader=_LOADER):
            if isinstance(event, yaml.MappingStartEvent | yaml.SequenceStartEvent):
                if depth == 0 and isinstance(event, yaml.SequenceStartEvent):
                    return [], "list"
                depth += 1
            elif isinstance(event, yaml.MappingEndEvent | yaml.SequenceEndEvent):
                depth -= 1
                if depth == 0:
                    return keys, "mapping"
                at_key = at_key or depth == 1
            elif isinstance(event, yaml.ScalarEvent | yaml.AliasEvent):
                if depth == 0:
                    return [], "scalar"
                if depth == 1:
                    if at_key and isinstance(event, yaml.ScalarEvent):
                        keys.append(str(event.value))
                        if event.value == "cases":
                            return keys, "mapping"
                    at_key = not at_key
    except yaml.YAMLError:
        return None, "not YAML"
    return keys, "empty"  # the stream ended before any node
