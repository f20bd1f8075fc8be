"""Suites: a corpus chunked and indexed once per configuration, then questions evaluated against it."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from ..chunking import shapes
from ..chunking.chunk import Chunk
from ..chunking.geometry import Geometry, configured_overlap, measure
from ..chunking.placement import place
from ..config.limits import bounded_output
from ..corpus import Document, read_documents
from ..errors import USER_FAULTS, ChunkrecallError, describe, raised, user_traceback
from ..gold import Filter
from ..retrieval import shapes as retrieval
from ..retrieval.adapters import BatchFunction, SearchFunction
from ..retrieval.rerank import Reranker, built_reranker, compression_stages, reranker
from ..text.matcher import Matcher
from ..text.space import MatchSpace
from .chunk_map import ChunkMap
from .finder import Finder
from .prefetch import Key, Outcome, Prefetch
from .reference import Reference

T = TypeVar("T")


@dataclass(frozen=True)
class Component:
    """A chunker or retriever as configured: its name, the object it names, its arguments."""

    name: str
    obj: Any = field(compare=False, repr=False)
    args_json: str = "{}"
    identity: int = 0
    args: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @classmethod
    def of(cls, name: str, obj: Any, args: dict[str, Any] | None = None) -> Component:
        """``args`` are compared as sorted JSON, and kept in the order written for display."""
        args = dict(args or {})
        return cls(name, obj, json.dumps(args, sort_keys=True, default=repr), id(obj), args)


class SuiteCache:
    """Reads each corpus, chunks it and builds each suite once per process — failures too."""

    def __init__(self, rootdir: Path | None = None) -> None:
        self.rootdir = rootdir or Path.cwd()
        self._built: dict[tuple[Any, ...], Any] = {}
        self._by_owner: dict[int, tuple[object, Suite]] = {}

    def remembered(self, owner: object, build: Callable[[], Suite]) -> Suite:
        """``build()``, once for ``owner`` (by identity): a key of every document and chunker
        argument costs as much to hash again as a case costs to evaluate."""
        known = self._by_owner.get(id(owner))
        if known is not None and known[0] is owner:
            return known[1]
        suite = build()
        self._by_owner[id(owner)] = (owner, suite)  # keeps owner, so its id is not reused
        return suite

    def documents(
        self, files: tuple[Path, ...], loader: Component | None, *, where: str | None = None
    ) -> tuple[Document, ...]:
        """The corpus files read once per process (through the user's loader, if one is set)."""
        return self._once(
            ("documents", files, loader),
            lambda: read_documents(
                files,
                self.rootdir,
                loader=loader.obj if loader else None,
                loader_name=loader.name if loader else "",
                where=where or "corpus",
            ),
        )

    def chunks(
        self, documents: tuple[Document, ...], chunker: Component, *, where: str | None = None
    ) -> tuple[Chunk, ...]:
        """The chunks of ``documents``, chunked once per process for each chunker configuration."""
        return self._once(
            ("chunks", documents, chunker),
            lambda: chunk_corpus(documents, chunker, where=where, rootdir=self.rootdir),
        )

    def suite(
        self,
        documents: tuple[Document, ...],
        chunker: Component,
        retriever: Component,
        *,
        where: str | None = None,
    ) -> Suite:
        """The suite for this configuration, built on first use; raises the build's error."""
        return self._once(
            ("suite", documents, chunker, retriever),
            lambda: Suite(
                documents,
                self.chunks(documents, chunker, where=where),
                chunker,
                retriever,
                where=where,
                rootdir=self.rootdir,
            ),
        )

    def close(self) -> int:
        """Stop every suite's questions asked ahead, and let go of everything built.

        Returns the number of retriever calls still running, which are abandoned.
        """
        running = sum(built.close() for built in self._built.values() if isinstance(built, Suite))
        self._built.clear()
        self._by_owner.clear()
        return running

    def _once(self, key: tuple[Any, ...], build: Callable[[], T]) -> T:
        """``build()``'s value for ``key``, or its error, remembered for the rest of the process."""
        if key not in self._built:
            try:
                self._built[key] = build()
            except ChunkrecallError as exc:
                self._built[key] = exc
        found = self._built[key]
        if isinstance(found, ChunkrecallError):
            raise found.with_traceback(None)  # the same error, not a growing traceback
        return found  # type: ignore[no-any-return]


def chunk_corpus(
    documents: Sequence[Document],
    chunker: Component,
    *,
    where: str | None = None,
    rootdir: Path | None = None,
) -> tuple[Chunk, ...]:
    """Run the chunker over every document and place each chunk in its document (its
    traceback, when it raises, names the files inside ``rootdir`` relative to it)."""
    split = shapes.chunk_function(chunker.obj, chunker.args, name=chunker.name, where=where)
    chunks: list[Chunk] = []
    for doc in documents:
        try:
            output = split(doc.text)
        except USER_FAULTS as exc:
            raise ChunkrecallError(
                f"chunker {chunker.name} raised on {doc.id}: {raised(exc, root=rootdir)}",
                where=where,
            ) from None
        try:
            bounded = bounded_output(output, doc.text, name=chunker.name, doc=doc.id)
            pieces = shapes.pieces(bounded, name=chunker.name, doc=doc.id)
        except ChunkrecallError as exc:
            raise ChunkrecallError(exc.message, where=where) from None
        places = place(doc.text, pieces, overlap=configured_overlap(chunker.args))
        for (text, _), offsets in zip(pieces, places, strict=True):
            start, end = offsets or (None, None)
            chunks.append(Chunk(text, doc.id, len(chunks), start, end))
    if not chunks:
        raise ChunkrecallError(
            f"chunker {chunker.name} returned no chunks for any document", where=where
        )
    return tuple(chunks)


class ChunksByText(Mapping[str, int]):
    """The index of the first chunk with each text, made on the first lookup.

    Only a result the retriever gives as text (a string, a LangChain document)
    is looked up in it; a retriever that returns chunks or their indexes never
    needs a map as large as the chunk list.
    """

    def __init__(self, chunks: Sequence[Chunk]) -> None:
        self._chunks = chunks
        self._indexes: dict[str, int] | None = None

    def __getitem__(self, text: str) -> int:
        return self._made()[text]

    def __iter__(self) -> Iterator[str]:
        return iter(self._made())

    def __len__(self) -> int:
        return len(self._made())

    def _made(self) -> dict[str, int]:
        if self._indexes is None:
            self._indexes = {}
            for chunk in self._chunks:
                self._indexes.setdefault(chunk.text, chunk.index)
        return self._indexes


class Suite:
    """A corpus, its chunks and the retriever built over them; evaluates cases."""

    def __init__(
        self,
        documents: tuple[Document, ...],
        chunks: tuple[Chunk, ...],
        chunker: Component,
        retriever: Component,
        *,
        where: str | None = None,
        rootdir: Path | None = None,
    ) -> None:
        self.documents = documents
        self.rootdir = rootdir  # user code's tracebacks name its files relative to it
        self.chunks = chunks
        self.chunker = chunker
        self.retriever = retriever
        self.chunk_map = ChunkMap(chunks)
        self._doc_numbers = {doc.id: number for number, doc in enumerate(documents)}
        self._by_text = ChunksByText(chunks)
        self._search, self._batch, self.own_reranker = _build_search(
            retriever, chunks, where=where, rootdir=rootdir
        )
        self._rerankers: dict[Component, Reranker | ChunkrecallError] = {}
        self.prefetch: Prefetch | None = None
        self._finders: dict[Matcher, Finder] = {}
        self._spaces: dict[bool, MatchSpace] = {}  # by whether the space is folded
        self._geometry: dict[Callable[[str], int], Geometry] = {}
        self._lengths: dict[Callable[[str], int], tuple[int, int]] = {}
        self._references: dict[tuple[tuple[Path, ...], Component | None], Reference] = {}

    def document(self, doc_id: str) -> Document:
        """The document with id ``doc_id``."""
        return self.documents[self._doc_numbers[doc_id]]

    @property
    def corpus_chars(self) -> int:
        return sum(len(doc.text) for doc in self.documents)

    def lengths(self, length: Callable[[str], int] = len) -> tuple[int, int]:
        """The total length of the chunks and of the corpus, in ``length``'s units, once per length."""
        found = self._lengths.get(length)
        if found is None:
            found = self._lengths[length] = (
                sum(length(chunk.text) for chunk in self.chunks),
                sum(length(doc.text) for doc in self.documents),
            )
        return found

    def finder(self, matcher: Matcher, *, known_searches: int = 0) -> Finder:
        """The corpus and chunks seen through ``matcher``, built on first use; the
        finders of modes that compare text the same way share its match space.

        ``known_searches``: how many times the asker's cases will search the corpus
        for certain (:meth:`Finder.expect_searches`).
        """
        found = self._finders.get(matcher)
        if found is None:
            folded = MatchSpace.folds(matcher.mode)
            space = self._spaces.get(folded)
            if space is None:
                texts = [doc.text for doc in self.documents]
                space = self._spaces[folded] = MatchSpace(texts, folded=folded)
            found = self._finders[matcher] = Finder(
                self.documents, self.chunk_map, self.chunks, matcher, space=space
            )
        found.expect_searches(known_searches)
        return found

    def reference(self, files: tuple[Path, ...], loader: Component | None) -> Reference:
        """The reference text of the source ``files`` these documents were loaded from (in
        their order), read when a miss first asks for it; ``loader`` reads those that are
        not text-like."""
        key = (files, loader)
        found = self._references.get(key)
        if found is None:
            sources = [(doc.id, path) for doc, path in zip(self.documents, files, strict=True)]
            found = self._references[key] = Reference(
                sources,
                loader.obj if loader else None,
                loader.name if loader else "",
                rootdir=self.rootdir,
            )
        return found

    def ahead(self, *, batch_size: int, concurrency: int) -> Prefetch | None:
        """Where questions are asked ahead of their cases: ``None`` when they are asked one by one.

        Made once: in batches when the retriever takes them, in threads when
        ``concurrency`` is above 1.
        """
        if self.prefetch is None and (self._batch is not None or concurrency > 1):
            self.prefetch = Prefetch(
                self._search,
                self._batch,
                name=self.retriever.name,
                batch_size=batch_size,
                concurrency=concurrency,
            )
        return self.prefetch

    def search(
        self, question: str, k: int, *, repeat: int = 0, where_filter: Filter | None = None
    ) -> list[retrieval.Retrieved]:
        """The retriever's top ``k`` for ``question`` in its ``repeat``-th asking (0 the first;
        asked ahead, when it was), with ``where_filter`` passed as ``filter=``."""
        key: Key = (question, k, repeat, where_filter)
        if self.prefetch is not None and self.prefetch.holds(key):
            outcome = self.prefetch.take(key)
        else:
            mapping = where_filter.mapping if where_filter is not None else None
            try:
                outcome = True, self._search(question, k, mapping)
            except USER_FAULTS as exc:
                outcome = False, exc
        return self._retrieved(question, k, outcome)

    def reranker(self, component: Component | None, *, where: str | None = None) -> Reranker | None:
        """The second stage: ``component`` made ready once (its factory called once), else the
        retriever's own (a LangChain compression retriever's compressor), else ``None``.

        Raises :class:`ChunkrecallError` when it cannot be built: the same error each time."""
        if component is None:
            return self.own_reranker
        found = self._rerankers.get(component)
        if found is None:
            try:
                found = reranker(component.obj, component.args, name=component.name, where=where)
            except ChunkrecallError as exc:
                found = exc  # its factory is called once, even when it fails
            self._rerankers[component] = found
        if isinstance(found, ChunkrecallError):
            raise found.with_traceback(None)
        return found

    def _retrieved(self, question: str, k: int, outcome: Outcome) -> list[retrieval.Retrieved]:
        ok, results = outcome
        if not ok:
            if isinstance(results, ChunkrecallError):
                raise results.with_traceback(None)
            raise ChunkrecallError(
                f"retriever {self.retriever.name} raised {describe(results)} for the question "
                f"{question!r}:\n{user_traceback(results, root=self.rootdir)}"
            ) from None
        return retrieval.retrieved(
            results, chunks=self.chunks, by_text=self._by_text, name=self.retriever.name, k=k
        )

    def close(self) -> int:
        """Stop asking ahead (the run is over, or interrupted); the calls still running."""
        return self.prefetch.close() if self.prefetch is not None else 0

    def geometry(self, length: Callable[[str], int] = len) -> Geometry:
        """Chunk sizes, index cost and effective overlap (see :func:`geometry.measure`), once per length."""
        found = self._geometry.get(length)
        if found is None:
            found = self._geometry[length] = measure(
                self.documents,
                self.chunks,
                length=length,
                configured_overlap=configured_overlap(self.chunker.args),
            )
        return found


def _build_search(
    retriever: Component, chunks: tuple[Chunk, ...], *, where: str | None, rootdir: Path | None
) -> tuple[SearchFunction, BatchFunction | None, Reranker | None]:
    """The first stage's search (and batch) function, and the second stage a retriever
    brings along (a LangChain ``ContextualCompressionRetriever``), if any."""
    try:
        built = retriever.obj(list(chunks), **retriever.args)
    except USER_FAULTS as exc:
        raise ChunkrecallError(
            f"retriever {retriever.name} failed while building its index over {len(chunks)} "
            f"chunk{'' if len(chunks) == 1 else 's'}: {raised(exc, root=rootdir)}",
            where=where,
        ) from None
    if built is None:
        raise ChunkrecallError(
            f"retriever {retriever.name} returned None; the factory must return a function "
            "search(question, k) or an object with a retrieve(question, k) method",
            where=where,
        )
    own = None
    stages = compression_stages(built)
    if stages is not None:
        built, compressor = stages
        own = built_reranker(
            compressor, name=f"{retriever.name} (its base_compressor)", where=where
        )
    return (
        retrieval.search_function(built, name=retriever.name, where=where),
        retrieval.batch_function(built, name=retriever.name, where=where),
        own,
    )
