"""The documents a gold file is evaluated against."""

from __future__ import annotations

import errno
import fnmatch
import glob
import hashlib
import os
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from .errors import USER_FAULTS, ChunkrecallError, describe, user_traceback

Loader = Callable[[Path], str]


@dataclass(frozen=True)
class Document:
    """A corpus document: ``id`` is its path relative to the rootdir (or a name a hook gave)."""

    id: str
    text: str


def find_files(patterns: Iterable[str], base: Path, *, where: str) -> list[Path]:
    """The files the glob ``patterns`` (relative to ``base``) name, sorted, each once.

    ``**`` walks each folder once, by its real path: a symlink that leads back to a
    folder being walked is skipped with a :class:`CorpusWarning` instead of being
    followed until the path is too long (or, with two such links, for ever).
    """
    found: dict[Path, None] = {}
    for pattern in patterns:
        full = os.path.join(base, os.path.expanduser(pattern))
        matches, loops = _glob(full, base, where)
        files = [path for path in matches if path.is_file()]
        if not files:
            if loops:
                hint = (
                    f"{_shown(loops[0], base)} is a symlink that leads to itself; fix or remove it"
                )
            elif matches:
                hint = "it matches only folders; add a file pattern such as 'docs/**/*.md'"
            else:
                hint = "check the path, which is relative to " + (
                    f"{base}" if base != Path.cwd() else "the current folder"
                )
            raise ChunkrecallError(
                f"corpus pattern {pattern!r} matches no file: {hint}", where=where
            )
        for path in files:
            found.setdefault(path.resolve(), None)
    return list(found)


class CorpusWarning(UserWarning):
    """Something in the corpus folders that was skipped, such as a symlink cycle."""


def _glob(full: str, base: Path, where: str) -> tuple[list[Path], list[Path]]:
    """The paths ``full`` matches, and the symlink loops among the names it matched."""
    if "**" not in full:
        named = sorted(Path(name) for name in glob.glob(full))
        return named, [path for path in named if _is_loop(path)]
    parts = Path(full).parts
    first = next(index for index, part in enumerate(parts) if glob.has_magic(part))
    top, rest = Path(*parts[:first]), parts[first:]
    matches: list[Path] = []
    loops: list[Path] = []
    hidden = any(part.startswith(".") for part in rest)
    for path in _walk(top, hidden=hidden, base=base, where=where):
        names = path.relative_to(top).parts
        if _matches(names, rest):
            matches.append(path)
            if _is_loop(path):
                loops.append(path)
    return sorted(matches), loops


def _walk(top: Path, *, hidden: bool, base: Path, where: str) -> Iterator[Path]:
    """Every path below ``top`` (folders followed through symlinks), each folder once."""
    try:
        start = os.stat(top)
    except OSError:
        return
    seen = {(start.st_dev, start.st_ino)}
    stack: list[tuple[Path, tuple[tuple[int, int], ...]]] = [(top, ((start.st_dev, start.st_ino),))]
    while stack:
        folder, ancestors = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError:
            continue
        below = []
        for entry in entries:
            path = Path(entry.path)
            yield path
            if entry.name.startswith(".") and not hidden:
                continue
            try:
                if not entry.is_dir():
                    continue
                info = os.stat(path)
            except OSError:
                continue
            identity = (info.st_dev, info.st_ino)
            if identity in ancestors:
                _warn(
                    f"corpus folder {_shown(path, base)} is a symlink back to "
                    f"{_shown(Path(os.path.realpath(path)), base)}, which is being walked "
                    "already; skipped",
                    where,
                )
            elif identity not in seen:  # a second way into a folder already walked
                seen.add(identity)
                below.append((path, (*ancestors, identity)))
        stack.extend(reversed(below))  # walked in name order


def matches_pattern(path: Path, pattern: str, base: Path) -> bool:
    """Whether the corpus pattern ``pattern`` (relative to ``base``) names ``path``, which
    need not exist yet: a file written there would be read as corpus by the next run."""
    full = Path(os.path.join(base, os.path.expanduser(pattern)))
    if not path.is_absolute():
        path = base / path
    anchor = Path(os.path.abspath(full)).parts
    names = Path(os.path.abspath(path)).parts
    return _matches(names, anchor)


def _matches(names: tuple[str, ...], parts: tuple[str, ...]) -> bool:
    """Whether the path ``names`` matches the pattern ``parts`` as glob's ``**`` would."""
    if not parts:
        return not names
    if parts[0] == "**":
        # ** spans any number of folders, never hidden ones
        return any(
            _matches(names[skip:], parts[1:])
            for skip in range(len(names) + 1)
            if not any(name.startswith(".") for name in names[:skip])
        )
    if not names or (names[0].startswith(".") and not parts[0].startswith(".")):
        return False
    return fnmatch.fnmatchcase(names[0], parts[0]) and _matches(names[1:], parts[1:])


def _warn(message: str, where: str) -> None:
    # Attributed to the gold file's line, where the pattern is, not to this module.
    name, _, line = where.rpartition(":")
    if not line.isdigit():
        name, line = where, "1"
    warnings.warn_explicit(CorpusWarning(f"{where}: {message}"), CorpusWarning, name, int(line))


def _is_loop(path: Path) -> bool:
    try:
        os.stat(path)
    except OSError as exc:
        return exc.errno == errno.ELOOP
    return False


def _shown(path: Path, base: Path) -> str:
    return os.path.relpath(path, base)


ROOTS_OPTION = "chunkrecall_corpus_roots"


def corpus_roots(rootdir: Path, lines: Iterable[str]) -> tuple[Path, ...]:
    """The folders corpus files may come from: the rootdir, and each of the ini option
    ``chunkrecall_corpus_roots`` (relative to the rootdir), by their real paths."""
    return (
        rootdir.resolve(),
        *((rootdir / line.strip()).resolve() for line in lines if line.strip()),
    )


def check_roots(
    paths: Iterable[Path], roots: Sequence[Path], *, where: str, what: str = "corpus file"
) -> None:
    """Refuse any of ``paths`` that, with symlinks followed, lies in none of ``roots``.

    Gold files are data, reviewed less carefully than code, and an ``absent`` verdict
    prints the closest text it found into the CI log: a pattern such as
    ``../../../home/*/.ssh/*`` (or a symlink in docs/) must not turn a pull request's
    gold file into a way to publish files from outside the project. Call it for every
    path a gold file names: corpus patterns, and ``doc:`` paths.
    """
    for path in paths:
        real = path.resolve()
        if not any(real.is_relative_to(root) for root in roots):
            extra = (
                "" if len(roots) == 1 else f" or {ROOTS_OPTION} ({', '.join(map(str, roots[1:]))})"
            )
            raise ChunkrecallError(
                f"{what} {real} lies outside the rootdir {roots[0]}{extra}; gold files may read "
                f"only files inside the project: move it in, or add its folder to the ini "
                f"option {ROOTS_OPTION}",
                where=where,
            )


def document_id(path: Path, rootdir: Path) -> str:
    """A path relative to the rootdir, with forward slashes, or the absolute path outside it."""
    try:
        return path.relative_to(rootdir).as_posix()
    except ValueError:
        return path.as_posix()


def read_documents(
    paths: Iterable[Path], rootdir: Path, *, loader: Loader | None, loader_name: str, where: str
) -> tuple[Document, ...]:
    """Read each file as UTF-8 text, or through the user's ``loader``."""
    documents = []
    for path in paths:
        doc_id = document_id(path, rootdir)
        text = (
            _load(path, doc_id, loader, loader_name, where, rootdir)
            if loader
            else _read(path, doc_id, where)
        )
        documents.append(Document(doc_id, text))
    return tuple(documents)


def from_mapping(
    documents: Mapping[str, str] | Iterable[tuple[str, str]], *, where: str
) -> tuple[Document, ...]:
    """Documents supplied by a ``pytest_chunkrecall_documents`` hook."""
    items = documents.items() if isinstance(documents, Mapping) else documents
    result = []
    try:
        for doc_id, text in items:
            if not isinstance(text, str):
                raise ChunkrecallError(
                    f"document {doc_id!r} from pytest_chunkrecall_documents is a "
                    f"{type(text).__name__}, not text; return a mapping of id to str",
                    where=where,
                )
            _check_unicode(
                text, what=f"document {doc_id!r} from pytest_chunkrecall_documents", where=where
            )
            result.append(Document(str(doc_id), text))
    except (TypeError, ValueError) as exc:
        raise ChunkrecallError(
            "pytest_chunkrecall_documents must return a mapping of document id to text "
            f"(or pairs of them): {describe(exc)}",
            where=where,
        ) from None
    if not result:
        raise ChunkrecallError("pytest_chunkrecall_documents returned no documents", where=where)
    return tuple(result)


def _read(path: Path, doc_id: str, where: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ChunkrecallError(
            f"corpus file {doc_id} is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at "
            f"offset {exc.start}); convert it, or set chunkrecall_loader to a function "
            "that reads such files and returns their text",
            where=where,
        ) from None
    except OSError as exc:
        raise ChunkrecallError(
            f"cannot read corpus file {doc_id}: {exc.strerror or describe(exc)}", where=where
        ) from None


def _load(
    path: Path, doc_id: str, loader: Loader, loader_name: str, where: str, rootdir: Path
) -> str:
    try:
        text = loader(path)
    except USER_FAULTS as exc:
        raise ChunkrecallError(
            f"loader {loader_name} failed on {doc_id}:\n{user_traceback(exc, root=rootdir)}",
            where=where,
        ) from None
    if not isinstance(text, str):
        raise ChunkrecallError(
            f"loader {loader_name} returned {type(text).__name__} for {doc_id}; it must return str",
            where=where,
        )
    _check_unicode(text, what=f"loader {loader_name} returned text for {doc_id} that", where=where)
    return text


def _check_unicode(text: str, *, what: str, where: str) -> None:
    """Refuse text that cannot be written as UTF-8: a lone surrogate, which a loader that
    decodes with ``errors="surrogateescape"`` leaves for each byte it could not read.

    No report, page, terminal or xdist channel can carry it, so it is refused where
    it enters, naming the document, rather than failing each place that writes it.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ChunkrecallError(
            f"{what} holds a lone surrogate (U+{ord(text[exc.start]):04X} at offset "
            f"{exc.start}), which is no Unicode character: decode the source with "
            "errors='replace' rather than 'surrogateescape', or drop the bytes that do "
            "not decode",
            where=where,
        ) from None


def fingerprint(text: str) -> str:
    """The sha256 of a document's text (UTF-8), in hex: equal texts, equal fingerprints."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
