"""Chunkers from RAG libraries, recognised by the names of their classes.

Nothing here imports a library at module import time: an object is
recognised by the modules and names of the classes it descends from, so a
project without LangChain (say) never pays for it. Each adapter asks its
library for chunk offsets where the library reports them.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Mapping
from typing import Any

from ..errors import ChunkrecallError, describe
from ..libraries import (
    CHONKIE_CHUNKER,
    LANGCHAIN_SPLITTER,
    LLAMAINDEX_PARSER,
    SEMCHUNK_CHUNKER,
    library_method,
)

ChunkFunction = Callable[[str], Any]

CHUNKER_LIBRARIES = (
    "a LangChain TextSplitter, a LlamaIndex node parser, a chonkie chunker, "
    "or a semchunk chunker from chunkerify()"
)


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


def _langchain_splitter(obj: Any, *, name: str, where: str | None) -> ChunkFunction:
    # create_documents puts metadata["start_index"] on each chunk when the
    # splitter was built with add_start_index=True: the library's own
    # text.find from (previous start + previous length - chunk_overlap).
    # Without it the Documents carry no start and the chunks are placed
    # by their text, as any chunker's are.
    create = library_method(obj, "create_documents", LANGCHAIN_SPLITTER, name, where, "chunker")
    return lambda text: create([text])


def _llamaindex_parser(obj: Any, *, name: str, where: str | None) -> ChunkFunction:
    # get_nodes_from_documents sets start_char_idx / end_char_idx on each node
    # it finds verbatim in the document (searching on from the previous
    # node's start), and leaves them None for nodes whose text it rewrote.
    parse = library_method(
        obj, "get_nodes_from_documents", LLAMAINDEX_PARSER, name, where, "chunker"
    )
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
    return library_method(obj, "chunk", CHONKIE_CHUNKER, name, where, "chunker")


def _semchunk(obj: Any, args: Mapping[str, Any], *, name: str, where: str | None) -> ChunkFunction:
    # Called with offsets=True, a semchunk Chunker returns (chunks, offsets),
    # each offset a (start, end) with chunks[i] == text[start:end].
    call = library_method(obj, "__call__", SEMCHUNK_CHUNKER, name, where, "chunker")
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


def _takes_keyword(function: Any, keyword: str) -> bool:
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(
        parameter.name == keyword or parameter.kind is inspect.Parameter.VAR_KEYWORD
        for parameter in parameters
    )
