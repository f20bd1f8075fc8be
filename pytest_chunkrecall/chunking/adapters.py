"""Chunkers and retrievers from RAG libraries, recognised by the names of their classes.

Nothing here imports a library at module import time: an object is
recognised by the modules and names of the classes it descends from, so a
project without LangChain (say) never pays for it. Each adapter asks its
library for chunk offsets where the library reports them, and asks a
retriever for exactly the ``k`` chunks a case wants.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import metadata
from typing import Any

from ..errors import ChunkrecallError, describe

ChunkFunction = Callable[[str], Any]
SearchFunction = Callable[[str, int], Any]

CHUNKER_LIBRARIES = (
    "a LangChain TextSplitter, a LlamaIndex node parser, a chonkie chunker, "
    "or a semchunk chunker from chunkerify()"
)
RETRIEVER_LIBRARIES = "a LangChain retriever or vector store, or a LlamaIndex retriever or index"


@dataclass(frozen=True)
class Kind:
    """A family of library objects: the class they descend from and the package shipping it."""

    library: str  # as people call it
    what: str  # what the objects are, in the library's words
    packages: tuple[str, ...]  # the top-level packages the base class may be defined in
    base: str  # the base class's name
    distribution: str  # the package to name in messages
    known: str  # the versions whose API this adapter was written against

    def describes(self, obj: Any) -> bool:
        """Whether ``obj`` (a class or an instance) descends from this kind's base class."""
        cls = obj if inspect.isclass(obj) else type(obj)
        for ancestor in getattr(cls, "__mro__", ()):
            package = (getattr(ancestor, "__module__", "") or "").partition(".")[0]
            if ancestor.__name__ == self.base and package in self.packages:
                return True
        return False

    def changed(self, role: str, name: str, problem: str, where: str | None) -> ChunkrecallError:
        """The error for an object of this kind whose API is not the one the adapter knows."""
        try:
            installed = f"{self.distribution} {metadata.version(self.distribution)}"
        except metadata.PackageNotFoundError:
            installed = f"an unknown version of {self.distribution}"
        return ChunkrecallError(
            f"{role} {name} is a {self.library} {self.what}, but {problem}: {installed} is "
            f"installed, and pytest-chunkrecall knows the API of {self.distribution} "
            f"{self.known}; install such a version, or wrap the {self.what} in a plain "
            f"function",
            where=where,
        )


_LANGCHAIN = ("langchain_core", "langchain_text_splitters", "langchain")
_LLAMAINDEX = ("llama_index",)
_LC, _LI = "1.x", "0.14"

# fmt: off
LANGCHAIN_SPLITTER = Kind("LangChain", "text splitter", _LANGCHAIN, "TextSplitter", "langchain-text-splitters", _LC)
LLAMAINDEX_PARSER = Kind("LlamaIndex", "node parser", _LLAMAINDEX, "NodeParser", "llama-index-core", _LI)
CHONKIE_CHUNKER = Kind("chonkie", "chunker", ("chonkie",), "BaseChunker", "chonkie", "1.x")
SEMCHUNK_CHUNKER = Kind("semchunk", "chunker", ("semchunk",), "Chunker", "semchunk", "3.x and 4.x")
LANGCHAIN_STORE = Kind("LangChain", "vector store", _LANGCHAIN, "VectorStore", "langchain-core", _LC)
LANGCHAIN_RETRIEVER = Kind("LangChain", "retriever", _LANGCHAIN, "BaseRetriever", "langchain-core", _LC)
LLAMAINDEX_RETRIEVER = Kind("LlamaIndex", "retriever", _LLAMAINDEX, "BaseRetriever", "llama-index-core", _LI)
LLAMAINDEX_INDEX = Kind("LlamaIndex", "index", _LLAMAINDEX, "BaseIndex", "llama-index-core", _LI)
# fmt: on


def constructor_args(cls: type, args: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments to instantiate chunker class ``cls`` with: ``args``, plus what offsets need.

    A LangChain splitter reports each chunk's start only when built with
    ``add_start_index=True``; that is added unless the user set it.
    """
    found = dict(args)
    if (
        LANGCHAIN_SPLITTER.describes(cls)
        and "add_start_index" not in found
        and _takes_keyword(cls, "add_start_index")
    ):
        found["add_start_index"] = True
    return found


def splitter(
    obj: Any, args: Mapping[str, Any], *, name: str, where: str | None
) -> ChunkFunction | None:
    """The chunk function of a library chunker instance, or ``None`` if ``obj`` is none.

    ``args`` are accepted only where the library configures a chunker at call
    time (semchunk's ``overlap``); anything else returns ``None`` with ``args``
    so that the caller says the object is already configured.
    """
    if inspect.isclass(obj):
        return None
    if SEMCHUNK_CHUNKER.describes(obj):
        return _semchunk(obj, args, name=name, where=where)
    if args:
        return None
    if LANGCHAIN_SPLITTER.describes(obj):
        return _langchain_splitter(obj, name=name, where=where)
    if LLAMAINDEX_PARSER.describes(obj):
        return _llamaindex_parser(obj, name=name, where=where)
    if CHONKIE_CHUNKER.describes(obj):
        return _chonkie(obj, name=name, where=where)
    return None


def searcher(built: Any, *, name: str, where: str | None) -> SearchFunction | None:
    """The search function of a library retriever, store or index, or ``None`` if it is none."""
    if inspect.isclass(built):
        return None
    if LANGCHAIN_STORE.describes(built):
        search = _method(built, "similarity_search", LANGCHAIN_STORE, name, where)
        return lambda question, k: search(question, k=k)
    if LANGCHAIN_RETRIEVER.describes(built):
        return _langchain_retriever(built, name=name, where=where)
    if LLAMAINDEX_RETRIEVER.describes(built):
        return _llamaindex_retriever(built, name=name, where=where)
    if LLAMAINDEX_INDEX.describes(built):
        return _llamaindex_index(built, name=name, where=where)
    return None


def _langchain_splitter(obj: Any, *, name: str, where: str | None) -> ChunkFunction:
    # create_documents puts metadata["start_index"] on each chunk when the
    # splitter was built with add_start_index=True: the library's own
    # text.find from (previous start + previous length - chunk_overlap).
    # Without it the Documents carry no start and the chunks are placed
    # by their text, as any chunker's are.
    create = _method(obj, "create_documents", LANGCHAIN_SPLITTER, name, where, "chunker")
    return lambda text: create([text])


def _llamaindex_parser(obj: Any, *, name: str, where: str | None) -> ChunkFunction:
    # get_nodes_from_documents sets start_char_idx / end_char_idx on each node
    # it finds verbatim in the document (searching on from the previous
    # node's start), and leaves them None for nodes whose text it rewrote.
    parse = _method(obj, "get_nodes_from_documents", LLAMAINDEX_PARSER, name, where, "chunker")
    try:
        document = importlib.import_module("llama_index.core.schema").Document
    except (ImportError, AttributeError) as exc:
        raise LLAMAINDEX_PARSER.changed(
            "chunker",
            name,
            f"llama_index.core.schema.Document cannot be imported ({describe(exc)})",
            where,
        ) from None
    return lambda text: parse([document(text=text)])


def _chonkie(obj: Any, *, name: str, where: str | None) -> ChunkFunction:
    # Each chonkie Chunk carries start_index / end_index into the text given.
    return _method(obj, "chunk", CHONKIE_CHUNKER, name, where, "chunker")


def _semchunk(obj: Any, args: Mapping[str, Any], *, name: str, where: str | None) -> ChunkFunction:
    # Called with offsets=True, a semchunk Chunker returns (chunks, offsets),
    # each offset a (start, end) with chunks[i] == text[start:end].
    call = _method(obj, "__call__", SEMCHUNK_CHUNKER, name, where, "chunker")
    if not _takes_keyword(call, "offsets"):
        raise SEMCHUNK_CHUNKER.changed(
            "chunker", name, "its call takes no offsets argument (added in semchunk 3.0)", where
        )
    try:
        inspect.signature(call).bind("text", **{**args, "offsets": True})
    except TypeError:
        raise ChunkrecallError(
            f"chunker {name} is a semchunk chunker, configured by chunkerify(); its "
            f"chunker_args can only be arguments of its call, such as overlap, not "
            f"{', '.join(sorted(args))}",
            where=where,
        ) from None
    except ValueError:  # no signature to check: let the call itself say what is wrong
        pass

    def split(text: str) -> list[dict[str, Any]]:
        texts, offsets = call(text, **{**args, "offsets": True})
        return [
            {"text": chunk, "start": start}
            for chunk, (start, _) in zip(texts, offsets, strict=True)
        ]

    return split


def _langchain_retriever(built: Any, *, name: str, where: str | None) -> SearchFunction:
    # A LangChain retriever returns as many documents as its own setting says
    # (BM25Retriever.k, VectorStoreRetriever.search_kwargs["k"]); a copy with
    # that setting at the case's k is made once per k.
    _method(built, "invoke", LANGCHAIN_RETRIEVER, name, where)
    fields = getattr(type(built), "model_fields", None) or {}
    copy = getattr(built, "model_copy", None)
    search_kwargs = getattr(built, "search_kwargs", None)

    def sized(k: int) -> Any:
        if copy is None:
            return built
        if "k" in fields and isinstance(getattr(built, "k", None), int):
            return copy(update={"k": k})
        if "search_kwargs" in fields and isinstance(search_kwargs, Mapping):
            return copy(update={"search_kwargs": {**search_kwargs, "k": k}})
        return built

    return _per_k(sized, lambda retriever, question: retriever.invoke(question))


def _llamaindex_retriever(built: Any, *, name: str, where: str | None) -> SearchFunction:
    # LlamaIndex retrievers keep their k in similarity_top_k (a settable
    # property on VectorIndexRetriever); it is set to the case's k before
    # each question. Results are NodeWithScore, read through .node.
    retrieve = _method(built, "retrieve", LLAMAINDEX_RETRIEVER, name, where)
    settable = isinstance(getattr(built, "similarity_top_k", None), int)

    def search(question: str, k: int) -> Any:
        if settable and built.similarity_top_k != k:
            with contextlib.suppress(AttributeError):  # read-only: it returns what it returns
                built.similarity_top_k = k
        return retrieve(question)

    return search


def _llamaindex_index(built: Any, *, name: str, where: str | None) -> SearchFunction:
    as_retriever = _method(built, "as_retriever", LLAMAINDEX_INDEX, name, where)
    return _per_k(
        lambda k: as_retriever(similarity_top_k=k),
        lambda retriever, question: retriever.retrieve(question),
    )


def _per_k(make: Callable[[int], Any], ask: Callable[[Any, str], Any]) -> SearchFunction:
    """A search function asking a retriever made by ``make(k)``, made once for each k."""
    made: dict[int, Any] = {}

    def search(question: str, k: int) -> Any:
        if k not in made:
            made[k] = make(k)
        return ask(made[k], question)

    return search


def _method(
    obj: Any, method: str, kind: Kind, name: str, where: str | None, role: str = "retriever"
) -> Callable[..., Any]:
    found = getattr(obj, method, None)
    if not callable(found):
        raise kind.changed(role, name, f"it has no {method}() method", where)
    return found  # type: ignore[no-any-return]


def _takes_keyword(function: Any, keyword: str) -> bool:
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.name == keyword or p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters)
