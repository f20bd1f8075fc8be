"""``python -m pytest_chunkrecall chunks``: where the configured chunker cuts each document.

The configuration is the one a gold file resolves to (its own keys, then the
project's ini options ``chunkrecall_corpus``, ``chunkrecall_chunker`` and
``chunkrecall_chunker_args``, then the defaults), or with ``--corpus`` the
ini options and defaults alone. Each chunk is listed with its offsets, its
length and its first and last words; ``--around TEXT`` keeps the chunks near
each place the text occurs and shows each boundary that falls inside it, so
that a span can be written to straddle one on purpose.
"""

from __future__ import annotations

import argparse
import configparser
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

if sys.version_info >= (3, 11):
    import tomllib
else:  # pytest depends on tomli where the standard library has no tomllib
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

from .chunking.chunk import Chunk
from .chunking.shapes import CONFIGURED, check_arguments
from .config.resolve import resolve
from .config.settings import DEFAULT_CHUNKER, Settings, check_setting
from .corpus import Document, document_id, find_files
from .errors import ChunkrecallError, shown
from .evaluation.suite import Component, SuiteCache, chunk_corpus
from .gold import load
from .gold.safe_yaml import load_inline
from .text.folding import fold, fold_text

CHUNKS_HELP = "Print each document's chunk boundaries under a gold file's configuration"
_EDGE_WORDS = 4  # words shown at each end of a chunk
_CONTEXT = 30  # characters shown either side of a boundary inside the --around text
_INI_FILES = (
    ("pytest.ini", "pytest"),
    (".pytest.ini", "pytest"),
    ("pyproject.toml", None),
    ("tox.ini", "pytest"),
    ("setup.cfg", "tool:pytest"),
)


def configure_chunks(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``chunks``."""
    parser.add_argument("gold_file", nargs="?", type=Path, metavar="GOLD_FILE")
    parser.add_argument(
        "--corpus",
        action="append",
        metavar="GLOB",
        help="Chunk these files (relative to the current folder) instead of a gold file's corpus",
    )
    parser.add_argument(
        "--around", metavar="TEXT", help="Show only the boundaries near each place TEXT occurs"
    )
    parser.add_argument("--json", action="store_true", help="Print the boundaries as JSON")


@dataclass(frozen=True)
class Listing:
    """What ``chunks`` found: the configuration, the documents and their chunks."""

    source: str
    chunker: Component
    documents: tuple[Document, ...]
    chunks: tuple[Chunk, ...]


def run_chunks(args: argparse.Namespace) -> int:
    """List the chunks; the exit status is 0, or 1 when ``--around`` text occurs nowhere."""
    if (args.gold_file is None) == (args.corpus is None):
        raise ChunkrecallError("give a gold file or --corpus GLOB (one of them)")
    listing = listing_of(args.gold_file, args.corpus, Path.cwd())
    places = _places(listing.documents, args.around) if args.around is not None else None
    if places == []:
        message = f"{shown(args.around)} occurs in no document of {listing.source} (case and whitespace aside)"
        if args.json:
            print(json.dumps(_data(listing, args.around, []), indent=1))
        print(f"error: {message}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(_data(listing, args.around, places), indent=1))
    else:
        print("\n".join(_text(listing, places)))
    return 0


def listing_of(gold_file: Path | None, corpus: Sequence[str] | None, cwd: Path) -> Listing:
    """The chunks of the corpus that ``gold_file`` (else the ``corpus`` globs) resolves to."""
    if gold_file is not None and not gold_file.is_file():
        raise ChunkrecallError(f"gold file {gold_file} does not exist")
    start = gold_file.resolve().parent if gold_file is not None else cwd.resolve()
    rootdir, ini = _project_ini(start, fallback=cwd.resolve())
    for folder in reversed(ini.pop("pythonpath", "").split()):
        sys.path.insert(0, str(rootdir / folder))  # where pytest would import the chunker from
    defaults = _ini_settings(ini, rootdir)
    if gold_file is not None:
        name = document_id(gold_file.resolve(), rootdir)
        own = load(gold_file.resolve(), name=name).settings
        settings, source = own.over(defaults), name
        reference = own.chunker or defaults.chunker or DEFAULT_CHUNKER
    else:
        assert corpus is not None
        settings = Settings(
            corpus=tuple(corpus),
            chunker=defaults.chunker,
            chunker_args=defaults.chunker_args,
            corpus_base=cwd,
            origins=defaults.origins,
        )
        source, reference = "--corpus", defaults.chunker or DEFAULT_CHUNKER
    if not settings.corpus:
        raise ChunkrecallError(
            "no corpus: add 'corpus: <glob>' to the gold file, set the ini option "
            "chunkrecall_corpus, or give --corpus GLOB",
            where=source,
        )
    where = settings.where("chunker") or source
    args = dict(settings.chunker_args or {})
    chunker = Component.of(reference, resolve(reference, what="chunker", where=where), args)
    problem = check_arguments(chunker.obj, args, role="chunker")
    if problem:
        raise ChunkrecallError(
            f"chunker {reference} {problem}"
            if problem == CONFIGURED
            else f"chunker {reference} with chunker_args {args}: {problem}",
            where=settings.where("chunker_args") or where,
        )
    files = tuple(
        find_files(
            settings.corpus,
            settings.corpus_base or rootdir,
            where=settings.where("corpus") or source,
        )
    )
    documents = SuiteCache(rootdir).documents(files, None, where=settings.where("corpus") or source)
    return Listing(source, chunker, documents, chunk_corpus(documents, chunker, where=where))


def _project_ini(start: Path, *, fallback: Path) -> tuple[Path, dict[str, str]]:
    """The folder of the nearest pytest configuration file at or above ``start``, and its
    ``chunkrecall_corpus``, ``chunkrecall_chunker``, ``chunkrecall_chunker_args`` and
    ``pythonpath`` options (as pytest finds its rootdir from the ini file)."""
    wanted = ("chunkrecall_corpus", "chunkrecall_chunker", "chunkrecall_chunker_args", "pythonpath")
    for folder in (start, *start.parents):
        for file_name, section in _INI_FILES:
            path = folder / file_name
            if not path.is_file():
                continue
            options = _ini_options(path, section)
            if options is None:
                continue
            return folder, {
                key.removeprefix("chunkrecall_"): options[key] for key in wanted if key in options
            }
    return fallback, {}


def _ini_options(path: Path, section: str | None) -> dict[str, str] | None:
    """The pytest options of one configuration file, or ``None`` when it has no pytest section."""
    try:
        if section is None:
            table = tomllib.loads(path.read_text("utf-8")).get("tool", {}).get("pytest", {})
            options = table.get("ini_options")
            if not isinstance(options, dict):
                return None
            return {
                key: "\n".join(map(str, value)) if isinstance(value, list) else str(value)
                for key, value in options.items()
            }
        parser = configparser.ConfigParser(interpolation=None)
        parser.read(path, encoding="utf-8")
    except (OSError, UnicodeDecodeError, ValueError, configparser.Error) as exc:
        raise ChunkrecallError(f"cannot read it: {exc}", where=str(path)) from None
    if not parser.has_section(section):
        return None if path.name != "pytest.ini" else {}
    return dict(parser.items(section))


def _ini_settings(ini: dict[str, str], rootdir: Path) -> Settings:
    values: dict[str, Any] = {}
    origins: dict[str, str] = {}
    for key, raw in ini.items():
        option = f"ini option chunkrecall_{key}"
        value: Any = raw.strip()
        if key == "corpus":
            value = value.split()
        elif key == "chunker_args":
            try:
                value = load_inline(value, key=f"chunkrecall_{key}")
            except yaml.YAMLError:
                raise ChunkrecallError(
                    f"{option}: cannot read {shown(raw)} as YAML or JSON"
                ) from None
        value, problem = check_setting(key, value)
        if problem:
            raise ChunkrecallError(f"{option} {problem}")
        values[key], origins[key] = value, option
    return Settings(**values, corpus_base=rootdir, origins=origins)


@dataclass(frozen=True)
class _Place:
    doc: str
    start: int
    end: int


def _places(documents: Sequence[Document], text: str) -> list[_Place]:
    """Where ``text`` occurs, as the normalized match finds it, in the documents' offsets."""
    pattern = fold_text(text)
    found = []
    for doc in documents:
        folded = fold(doc.text)
        at = folded.text.find(pattern) if pattern else -1
        while at >= 0:
            found.append(
                _Place(doc.id, folded.original_start(at), folded.original_end(at + len(pattern)))
            )
            at = folded.text.find(pattern, at + 1)
    return found


def _near(chunks: Sequence[Chunk], places: Sequence[_Place] | None) -> list[Chunk]:
    """The chunks that overlap a place, or touch it (all of them without ``--around``)."""
    if places is None:
        return list(chunks)
    return [
        chunk
        for chunk in chunks
        if chunk.start is not None
        and chunk.end is not None
        and any(
            place.doc == chunk.doc and chunk.start <= place.end and chunk.end >= place.start
            for place in places
        )
    ]


def _edges(text: str) -> tuple[str, str]:
    words = text.split()
    return " ".join(words[:_EDGE_WORDS]), " ".join(words[-_EDGE_WORDS:])


def _chunk_data(chunk: Chunk) -> dict[str, Any]:
    first, last = _edges(chunk.text)
    return {
        "index": chunk.index,
        "start": chunk.start,
        "end": chunk.end,
        "length": len(chunk.text),
        "first_words": first,
        "last_words": last,
    }


def _cuts(chunks: Sequence[Chunk], place: _Place) -> list[int]:
    """The chunk boundaries (starts and ends) that fall strictly inside ``place``."""
    return sorted(
        {
            offset
            for chunk in chunks
            if chunk.doc == place.doc
            for offset in (chunk.start, chunk.end)
            if offset is not None and place.start < offset < place.end
        }
    )


def _data(listing: Listing, around: str | None, places: list[_Place] | None) -> dict[str, Any]:
    """The listing as JSON values."""
    near = _near(listing.chunks, places)
    data: dict[str, Any] = {
        "source": listing.source,
        "chunker": listing.chunker.name,
        "chunker_args": listing.chunker.args,
        "documents": [
            {
                "doc": doc.id,
                "chars": len(doc.text),
                "chunks": [_chunk_data(chunk) for chunk in near if chunk.doc == doc.id],
            }
            for doc in listing.documents
            if places is None or any(place.doc == doc.id for place in places)
        ],
    }
    if around is not None:
        data["around"] = {
            "text": around,
            "places": [
                {"doc": p.doc, "start": p.start, "end": p.end, "cuts": _cuts(listing.chunks, p)}
                for p in places or []
            ],
        }
    return data


def _text(listing: Listing, places: list[_Place] | None) -> list[str]:
    """The listing as lines a person reads."""
    args = ", ".join(f"{key}={value!r}" for key, value in listing.chunker.args.items())
    lines = [
        f"chunks of {listing.source}: chunker {listing.chunker.name}({args}), "
        f"{_count(len(listing.chunks), 'chunk')} in {_count(len(listing.documents), 'document')}"
    ]
    near = _near(listing.chunks, places)
    texts = {doc.id: doc.text for doc in listing.documents}
    for doc in listing.documents:
        mine = [chunk for chunk in near if chunk.doc == doc.id]
        if places is not None and not mine:
            continue
        lines.append(f"{doc.id} ({len(doc.text):,} chars):")
        for chunk in mine:
            where = (
                f"[{chunk.start}:{chunk.end}]" if chunk.start is not None else "[offsets unknown]"
            )
            first, last = _edges(chunk.text)
            lines.append(
                f"  chunk {chunk.index} {where} {len(chunk.text)} chars: {first!r} … {last!r}"
            )
        for place in places or []:
            if place.doc != doc.id:
                continue
            cuts = _cuts(listing.chunks, place)
            lines.append(
                f"  {shown(texts[doc.id][place.start : place.end])} at [{place.start}:{place.end}]: "
                + (_count(len(cuts), "boundary", "boundaries") if cuts else "no boundary")
                + " inside it"
            )
            text = texts[doc.id]
            for offset in cuts:
                before = " ".join(text[max(place.start, offset - _CONTEXT) : offset].split())
                after = " ".join(text[offset : min(place.end, offset + _CONTEXT)].split())
                lines.append(f"    offset {offset}: …{before}|{after}…")
    return lines


def _count(number: int, noun: str, plural: str | None = None) -> str:
    return f"{number:,} {noun if number == 1 else plural or noun + 's'}"
