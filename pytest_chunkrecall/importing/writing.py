"""What an importer writes: gold files, unresolved files, and writing them all or none.

An importer first builds every file's text in memory (an :class:`Output`);
only when the whole input has been read without error does it check that no
file would be overwritten and write each one atomically.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from ..errors import ChunkrecallError, counted
from ..files import write_atomically
from ..gold import slug
from ..guard import OutputPath, Protected, check, quoted

UNRESOLVED_SUFFIX = ".unresolved.yaml"
# The rootdir marker of an imported project: gold/*.yaml are collected by default.
PYTEST_INI = (
    "[pytest]\n# Written by python -m pytest_chunkrecall import: gold/*.yaml are collected.\n"
)
_WHITESPACE = re.compile(r"\s+")

FileSettings = Mapping[str, str | list[str]]
"""File-level keys of a written gold file, such as ``corpus``."""


@dataclass(frozen=True)
class GoldCase:
    """One case as the importer writes it; ``span`` and ``doc`` are left out when ``None``."""

    id: str
    question: str
    needle: str
    span: str | None = None
    doc: str | None = None

    def as_yaml(self) -> dict[str, str]:
        """The case's keys in the order a reader expects them."""
        keys = {"id": self.id, "question": self.question, "needle": self.needle}
        if self.span is not None:
            # Found as the normalized match finds it, a span keeps its place with
            # its whitespace collapsed, and reads as one line rather than a
            # multi-line quoted scalar.
            keys["span"] = " ".join(self.span.split())
        if self.doc is not None:
            keys["doc"] = self.doc
        return keys


@dataclass(frozen=True)
class Unresolved:
    """A row that could not be anchored: its case (without a span) and why, as comment lines."""

    case: GoldCase
    notes: tuple[str, ...]
    kind: str  # "ambiguous" or "not found", for the summary


class Ids:
    """Case ids unique within one gold file: the given id or the question's slug, then -2, -3…

    A given id written otherwise is remembered in :attr:`renamed`, for the import's
    summary: the README promises the dataset's own ids.
    """

    def __init__(self) -> None:
        self._taken: set[str] = set()
        self.renamed: list[str] = []  # one line each: what was given, where, what was written

    def claim(self, given: str | None, question: str, *, where: str = "") -> str:
        """A unique id for a case with id ``given`` (or none) asking ``question``.

        ``where`` names the row or question, for :attr:`renamed`.
        """
        base = _WHITESPACE.sub(" ", given).strip().replace("::", ":") if given else ""
        base = base or slug(question)
        candidate, number = base, 1
        while candidate in self._taken:
            number += 1
            candidate = f"{base}-{number}"
        self._taken.add(candidate)
        if given and given.strip() and candidate != given.strip():
            why = (
                "an earlier case has that id"
                if candidate != base
                else "a case id holds no '::', no line breaks and no runs of spaces"
            )
            at = f" ({where})" if where else ""
            self.renamed.append(f"{given!r}{at} is written as {candidate!r}: {why}")
        return candidate


_SHOWN_RENAMINGS = 20


def renamings(renamed: Sequence[str]) -> list[str]:
    """The lines of an import's summary that say which given ids were written otherwise."""
    if not renamed:
        return []
    head = f"{counted(len(renamed), 'id')} renamed"
    if len(renamed) == 1:
        return [f"{head}: {renamed[0]}"]
    lines = [f"{head}:", *(f"  {line}" for line in renamed[:_SHOWN_RENAMINGS])]
    if len(renamed) > _SHOWN_RENAMINGS:
        lines.append(f"  … and {len(renamed) - _SHOWN_RENAMINGS} more")
    return lines


def gold_yaml(header: Iterable[str], settings: FileSettings, cases: Iterable[GoldCase]) -> str:
    """A gold file: comment lines, file-level ``settings`` (e.g. ``corpus``), then ``cases:``."""
    parts = [_comments(header, indent=""), _dump(dict(settings)) if settings else ""]
    parts.append(_dump({"cases": [case.as_yaml() for case in cases]}))
    return "".join(parts)


def unresolved_yaml(
    header: Iterable[str], settings: FileSettings, entries: Iterable[Unresolved]
) -> str:
    """A gold-shaped file with ``unresolved:`` instead of ``cases:``, each entry under its notes."""
    parts = [
        _comments(header, indent=""),
        _dump(dict(settings)) if settings else "",
        "unresolved:\n",
    ]
    for entry in entries:
        parts.append(_comments(entry.notes, indent="  "))
        item = _dump([entry.case.as_yaml()])
        parts.append("".join("  " + line for line in item.splitlines(keepends=True)))
    return "".join(parts)


def relative(path: Path | str, start: Path) -> str:
    """``path`` relative to the folder ``start``, with forward slashes (absolute when it cannot be)."""
    target, base = os.path.abspath(path), os.path.abspath(start)
    try:
        if os.path.dirname(os.path.commonpath([target, base])) == os.path.commonpath(
            [target, base]
        ):
            # they share only the filesystem root: "../../../x" would say less than "/x"
            return Path(target).as_posix()
        return Path(os.path.relpath(target, base)).as_posix()
    except ValueError:  # another drive on Windows
        return Path(target).as_posix()


def one_line(text: str, limit: int = 160) -> str:
    """``text`` with whitespace collapsed, trimmed to ``limit`` characters for a comment."""
    flat = _WHITESPACE.sub(" ", text).strip()
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _comments(lines: Iterable[str], *, indent: str) -> str:
    # a note's own leading spaces indent it under the one before
    return "".join(
        f"{indent}# {line[: len(line) - len(line.lstrip())]}{one_line(line, 400)}\n"
        for line in lines
    )


def _dump(value: object) -> str:
    # A very wide line keeps each span on one line: folded scalars would be
    # harder to edit, and they read back the same.
    return yaml.safe_dump(value, sort_keys=False, allow_unicode=True, width=10**6)


@dataclass
class Output:
    """The files one command will write, kept in memory until :meth:`write`."""

    force: bool = False
    files: dict[Path, str] = field(default_factory=dict)
    kept: list[Path] = field(default_factory=list)
    fresh: set[Path] = field(default_factory=set)  # made only where nothing is, as pytest.ini

    def add(self, path: Path, text: str) -> None:
        """Plan to write ``text`` to ``path``."""
        if path in self.files:
            raise ChunkrecallError(f"two outputs would be written to {path}")
        self.files[path] = text

    def add_unless_present(self, path: Path, text: str) -> None:
        """Plan ``path`` only when it does not exist yet (a config file the user may have edited)."""
        if os.path.lexists(path):  # a link, even one to nothing, is the user's
            self.kept.append(path)
        else:
            self.add(path, text)
            self.fresh.add(path)

    def write(self, protected: Protected) -> None:
        """Write every planned file atomically, after the output guard passed each of them
        and none would be overwritten (without ``--force``)."""
        for path in [path for path in self.files if path not in self.fresh]:
            # every existing file is listed below, at once, rather than the first alone
            output = OutputPath(path, quoted(relative(path, Path.cwd())))
            check(output, protected, force=True, force_option="--force")
        existing = [path for path in self.files if os.path.lexists(path)]
        if existing and not self.force:
            shown = ", ".join(quoted(path) for path in existing[:5])
            more = f" and {len(existing) - 5} more" if len(existing) > 5 else ""
            raise ChunkrecallError(
                f"would overwrite {shown}{more}; pass --force to replace, or choose another --out"
            )
        for path, text in self.files.items():
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                write_atomically(path, text)
            except OSError as exc:
                raise ChunkrecallError(
                    f"cannot write {quoted(path)}: {exc.strerror or exc}"
                ) from None
