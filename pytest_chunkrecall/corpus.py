"""The documents a gold file is evaluated against."""

from __future__ import annotations

import glob
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from .errors import ChunkrecallError, describe, user_traceback

Loader = Callable[[Path], str]


@dataclass(frozen=True)
class Document:
    """A corpus document: ``id`` is its path relative to the rootdir (or a name a hook gave)."""

    id: str
    text: str


def find_files(patterns: Iterable[str], base: Path, *, where: str) -> list[Path]:
    """The files the glob ``patterns`` (relative to ``base``) name, sorted, each once."""
    found: dict[Path, None] = {}
    for pattern in patterns:
        full = os.path.join(base, os.path.expanduser(pattern))
        matches = sorted(Path(p) for p in glob.glob(full, recursive=True))
        files = [p for p in matches if p.is_file()]
        if not files:
            hint = (
                "it matches only folders; add a file pattern such as 'docs/**/*.md'"
                if matches
                else "check the path, which is relative to "
                + (f"{base}" if base != Path.cwd() else "the current folder")
            )
            raise ChunkrecallError(
                f"corpus pattern {pattern!r} matches no file: {hint}", where=where
            )
        for path in files:
            found.setdefault(path.resolve(), None)
    return list(found)


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
            _load(path, doc_id, loader, loader_name, where)
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


def _load(path: Path, doc_id: str, loader: Loader, loader_name: str, where: str) -> str:
    try:
        text = loader(path)
    except Exception as exc:
        raise ChunkrecallError(
            f"loader {loader_name} failed on {doc_id}:\n{user_traceback(exc)}", where=where
        ) from None
    if not isinstance(text, str):
        raise ChunkrecallError(
            f"loader {loader_name} returned {type(text).__name__} for {doc_id}; it must return str",
            where=where,
        )
    return text
