"""The second stage: a reranker, compressor or similarity cutoff that picks the final k
from the first stage's candidates.

What ``reranker:`` names is told apart by its signature. A callable that can be
called as ``f(question, chunks, k, **reranker_args)`` is the rerank function
itself; any other callable (a class too) is a factory, called once with
``**reranker_args``, which returns a rerank function, an object with a
``rerank(question, chunks, k)`` method, a LangChain document compressor, or
LlamaIndex node postprocessors (one, or a list applied in order). What is no
callable at all is used as such a result directly.

A rerank function is given the candidates as :class:`Chunk` s and returns at
most ``k`` of them, in rank order. A library's compressor or postprocessors
are given the candidates as the library's own objects (the first stage's, when
it came from the same library) and do not know k: their first k count.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..callables import accepts, iterable, shape
from ..chunking.chunk import Chunk
from ..errors import USER_FAULTS, ChunkrecallError, raised
from ..libraries import Family, library_method
from .shapes import Retrieved

LANGCHAIN_COMPRESSOR = Family(
    library="LangChain",
    what="document compressor",
    packages=("langchain_core", "langchain", "langchain_classic"),
    base="BaseDocumentCompressor",
    distribution="langchain-core",
    known="1.x",
)
LLAMAINDEX_POSTPROCESSOR = Family(
    library="LlamaIndex",
    what="node postprocessor",
    packages=("llama_index",),
    base="BaseNodePostprocessor",
    distribution="llama-index-core",
    known="0.14",
)
RERANKER_SHAPES = (
    "a function rerank(question, chunks, k), or a factory returning one, an object with a "
    "rerank(question, chunks, k) method, a LangChain document compressor, or LlamaIndex "
    "node postprocessors"
)
_INDEX = "chunkrecall_index"  # where a chunk's index rides in a library object's metadata

# (question, candidates, k) -> what the stage returned, in rank order
Stage = Callable[[str, Sequence[Retrieved], int], Any]


@dataclass(frozen=True)
class Reranker:
    """The second stage, ready to be asked: its name, how to ask it, and whether it knows k
    (a rerank function must return at most k; a library's stage is cut at k)."""

    name: str
    stage: Stage
    knows_k: bool

    def rerank(self, question: str, candidates: Sequence[Retrieved], k: int) -> list[Retrieved]:
        """The final top ``k`` for ``question``: candidates, in the order the stage put them.

        Each keeps its ``candidate_rank``. Raises :class:`ChunkrecallError` naming
        the reranker when it raises, or returns what it was not given.
        """
        try:
            output = self.stage(question, candidates, k)
            items = list(output) if _listable(output) else None
        except ChunkrecallError:
            raise
        except USER_FAULTS as exc:
            raise ChunkrecallError(
                f"reranker {self.name} raised for the question {question!r}: {raised(exc)}"
            ) from None
        if items is None:
            raise ChunkrecallError(
                f"reranker {self.name} returned {shape(output)} for the question {question!r}; "
                "it must return a list of the chunks it was given, in rank order"
            )
        if self.knows_k and len(items) > k:
            raise ChunkrecallError(
                f"reranker {self.name} returned {len(items)} chunks for the question "
                f"{question!r}, but k is {k}; it must return at most k of the chunks it was "
                f"given (the first one past k: {_shown(items[k])})"
            )
        return _matched(items[:k], candidates, name=self.name, question=question)


def reranker(obj: Any, args: Mapping[str, Any], *, name: str, where: str | None) -> Reranker:
    """The reranker that ``obj`` (what ``reranker:`` names) is or makes (see the module docstring)."""
    if callable(obj) and not inspect.isclass(obj) and _is_rerank_function(obj, args):
        return Reranker(
            name, lambda question, found, k: obj(question, _chunks(found), k, **args), True
        )
    built = obj
    if callable(obj) and not _is_stage(obj):
        try:
            built = obj(**args)
        except USER_FAULTS as exc:
            raise ChunkrecallError(
                f"reranker {name} was called as a factory with {dict(args)} and raised: "
                f"{raised(exc)}; a rerank function takes (question, chunks, k)",
                where=where,
            ) from None
    elif args:
        raise ChunkrecallError(
            f"reranker {name} is {shape(obj)}, which takes no reranker_args; name a factory "
            "that accepts them, or drop reranker_args",
            where=where,
        )
    return built_reranker(built, name=name, where=where)


def built_reranker(built: Any, *, name: str, where: str | None) -> Reranker:
    """The reranker that a factory returned (or a library stage given as it is)."""
    if LANGCHAIN_COMPRESSOR.describes(built) and not inspect.isclass(built):
        compress = library_method(
            built, "compress_documents", LANGCHAIN_COMPRESSOR, name, where, role="reranker"
        )
        return Reranker(
            name, lambda question, found, k: compress(_documents(found), question), False
        )
    steps = _postprocessors(built)
    if steps is not None:
        methods = [
            library_method(
                step, "postprocess_nodes", LLAMAINDEX_POSTPROCESSOR, name, where, role="reranker"
            )
            for step in steps
        ]
        return Reranker(
            name, lambda question, found, k: _postprocessed(methods, found, question), False
        )
    method = getattr(built, "rerank", None)
    if callable(method) and not inspect.isclass(built):
        return Reranker(name, lambda question, found, k: method(question, _chunks(found), k), True)
    if callable(built) and not inspect.isclass(built):
        return Reranker(name, lambda question, found, k: built(question, _chunks(found), k), True)
    raise ChunkrecallError(
        f"reranker {name} gave {shape(built)}; it must be {RERANKER_SHAPES}", where=where
    )


def compression_stages(built: Any) -> tuple[Any, Any] | None:
    """A LangChain ``ContextualCompressionRetriever``'s two stages: (its ``base_retriever``,
    its ``base_compressor``), or ``None`` for any other retriever."""
    if inspect.isclass(built) or type(built).__name__ != "ContextualCompressionRetriever":
        return None
    first = getattr(built, "base_retriever", None)
    second = getattr(built, "base_compressor", None)
    if first is None or second is None:
        return None
    return first, second


def _is_rerank_function(obj: Any, args: Mapping[str, Any]) -> bool:
    return accepts(obj, ("question", "chunks", "k"), args) and not _is_stage(obj)


def _is_stage(obj: Any) -> bool:
    """A library stage given as it is: compressors and postprocessors may be callable."""
    return LANGCHAIN_COMPRESSOR.describes(obj) or LLAMAINDEX_POSTPROCESSOR.describes(obj)


def _postprocessors(built: Any) -> list[Any] | None:
    if LLAMAINDEX_POSTPROCESSOR.describes(built) and not inspect.isclass(built):
        return [built]
    if (
        isinstance(built, list | tuple)
        and built
        and all(
            LLAMAINDEX_POSTPROCESSOR.describes(step) and not inspect.isclass(step) for step in built
        )
    ):
        return list(built)
    return None


def _chunks(found: Sequence[Retrieved]) -> list[Chunk]:
    # A result that is no chunk of the corpus (text only) is still a candidate.
    return [
        result.chunk if result.chunk is not None else Chunk(result.text, "", -1) for result in found
    ]


def _documents(found: Sequence[Retrieved]) -> list[Any]:
    from langchain_core.documents import Document

    return [
        result.source
        if isinstance(result.source, Document)
        else Document(page_content=result.text, metadata=_metadata(result))
        for result in found
    ]


def _postprocessed(
    methods: list[Callable[..., Any]], found: Sequence[Retrieved], question: str
) -> Any:
    from llama_index.core.schema import NodeWithScore, TextNode

    nodes = [
        result.source
        if isinstance(result.source, NodeWithScore)
        else NodeWithScore(
            node=TextNode(text=result.text, metadata=_metadata(result)), score=result.score
        )
        for result in found
    ]
    for method in methods:
        nodes = list(method(nodes, query_str=question))
    return nodes


def _metadata(result: Retrieved) -> dict[str, Any]:
    return {_INDEX: result.chunk.index} if result.chunk is not None else {}


def _matched(
    items: list[Any], candidates: Sequence[Retrieved], *, name: str, question: str
) -> list[Retrieved]:
    """Each returned item as the candidate it is, ranked anew; an error for any other item."""
    by_identity = {id(result.source): result for result in candidates if result.source is not None}
    by_identity.update(
        {id(result.chunk): result for result in candidates if result.chunk is not None}
    )
    by_index = {result.chunk.index: result for result in candidates if result.chunk is not None}
    by_text: dict[str, list[Retrieved]] = {}
    for result in candidates:
        by_text.setdefault(result.text, []).append(result)
    taken: set[int] = set()
    final: list[Retrieved] = []
    for rank, item in enumerate(items, start=1):
        found = _candidate(item, by_identity, by_index, by_text, taken)
        if found is None:
            problem = (
                f"{shape(item)} at rank {rank}, which is no chunk,"
                if _text(item) is None
                else f"a chunk it was not given ({_shown(item)}) at rank {rank}"
            )
            raise ChunkrecallError(
                f"reranker {name} returned {problem} for the question {question!r}; a "
                "reranker may only reorder and drop the candidates it is given"
            )
        if found.rank in taken:
            raise ChunkrecallError(
                f"reranker {name} returned the candidate at rank {found.rank} twice for the "
                f"question {question!r} ({_shown(item)}); each chunk may come back once"
            )
        taken.add(found.rank)
        final.append(replace(found, rank=rank, candidate_rank=found.rank))
    return final


def _candidate(
    item: Any,
    by_identity: Mapping[int, Retrieved],
    by_index: Mapping[int, Retrieved],
    by_text: Mapping[str, list[Retrieved]],
    taken: set[int],
) -> Retrieved | None:
    known = by_identity.get(id(item))
    if known is not None:
        return known
    if isinstance(item, Chunk) and item.index >= 0:
        same = by_index.get(item.index)
        if same is not None and same.chunk == item:
            return same
        return None  # a Chunk, but none of the candidates
    metadata = getattr(getattr(item, "node", item), "metadata", None)
    if isinstance(metadata, Mapping) and isinstance(metadata.get(_INDEX), int):
        same = by_index.get(metadata[_INDEX])
        if same is not None:
            return same
    text = _text(item)
    if text is None:
        return None
    alike = by_text.get(text, [])
    return next(
        (result for result in alike if result.rank not in taken), alike[0] if alike else None
    )


def _text(item: Any) -> str | None:
    if isinstance(item, Chunk):
        return item.text
    node = getattr(item, "node", None)
    if node is not None and not isinstance(item, str | Mapping):
        item = node
    for attribute in ("page_content", "text"):
        try:
            value = getattr(item, attribute, None)
        except USER_FAULTS:
            return None
        if isinstance(value, str):
            return value
    getter = getattr(item, "get_content", None)
    if callable(getter):
        try:
            content = getter()
        except USER_FAULTS:
            return None
        return content if isinstance(content, str) else None
    return None


def _shown(item: Any) -> str:
    text = _text(item)
    if text is None:
        return shape(item)
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= 60 else flat[:59] + "…")


def _listable(value: Any) -> bool:
    return not (value is None or isinstance(value, str | bytes | Mapping)) and iterable(value)
