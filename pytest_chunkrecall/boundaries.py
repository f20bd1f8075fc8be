"""``python -m pytest_chunkrecall chunks``: where the configured chunker cuts each document.

The configuration is the one a gold file resolves to, through the setup
resolver the tests use (:func:`.evaluation.setup.resolve_setup`): its own keys,
then the project's ini options, then the defaults; the loader applied and the
corpus roots enforced. With ``--corpus`` the ini options and defaults alone
configure the chunker and loader. Each chunk is listed with its offsets, its
length and its first and last words; ``--around TEXT`` keeps the chunks near
each place the text occurs and shows each boundary that falls inside it, so
that a span can be written to straddle one on purpose.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .chunking.chunk import Chunk
from .config.settings import Settings
from .corpus import Document, document_id
from .discovery import gold_path_problem
from .errors import ChunkrecallError, shown
from .evaluation.project import find_project
from .evaluation.setup import resolve_setup
from .evaluation.suite import Component, SuiteCache, chunk_corpus
from .gold import load
from .text.folding import fold, fold_text

CHUNKS_HELP = "Print each document's chunk boundaries under a gold file's configuration"
_EDGE_WORDS = 4  # words shown at each end of a chunk
_CONTEXT = 30  # characters shown either side of a boundary inside the --around text


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
    if args.around is not None and not fold_text(args.around):
        raise ChunkrecallError(
            f"--around {shown(args.around)} has no text to look for; give a passage, "
            "e.g. --around 'refund window'"
        )
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
    """The chunks of the corpus that ``gold_file`` (else the ``corpus`` globs, relative to
    ``cwd``) resolves to: the chunks its tests use, the loader applied, inside the corpus roots."""
    if gold_file is not None:
        problem = gold_path_problem(gold_file)
        if problem is not None:
            raise ChunkrecallError(problem)
    start = gold_file.resolve().parent if gold_file is not None else cwd.resolve()
    project = find_project(start, fallback=cwd)
    project.importable()
    if gold_file is not None:
        source = document_id(gold_file.resolve(), project.rootdir)
        own = load(gold_file.resolve(), name=source).settings
    else:
        assert corpus is not None
        source = "--corpus"
        own = Settings(corpus=tuple(corpus), corpus_base=cwd, origins={"corpus": source})
    setup = resolve_setup(
        own, name=source, rootdir=project.rootdir, ini=project.ini, roots=project.roots
    )
    documents = setup.read(SuiteCache(project.rootdir))
    where = setup.settings.where("chunker") or source
    return Listing(
        source, setup.chunker, documents, chunk_corpus(documents, setup.chunker, where=where)
    )


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
