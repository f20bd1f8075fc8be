"""Retrievers, vector stores and indexes from RAG libraries, recognised by their classes.

As for chunkers, nothing is imported until an object is recognised; each
adapter asks its library for exactly the ``k`` chunks a case wants.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from ..errors import ChunkrecallError
from ..libraries import (
    LANGCHAIN_RETRIEVER,
    LANGCHAIN_STORE,
    LLAMAINDEX_INDEX,
    LLAMAINDEX_RETRIEVER,
    library_method,
)

Filter = Mapping[str, Any] | None
"""A gold file's ``filter:``, passed unchanged as ``filter=`` to the search (``None``: none)."""
# ``(question, k, filter) -> results``.
SearchFunction = Callable[[str, int, Filter], Any]
# ``(questions, k, filter) -> one result list per question``, in the questions' order.
BatchFunction = Callable[[list[str], int, Filter], Any]


def filter_refused(name: str, search: str) -> ChunkrecallError:
    """The error of a retriever whose search cannot take the gold file's ``filter``."""
    return ChunkrecallError(
        f"retriever {name} does not accept filter=: its {search} takes no 'filter' keyword "
        "argument, so the gold file's filter cannot reach it (every result would be "
        "unfiltered); give it one, e.g. search(question, k, filter=None), or remove 'filter:'"
    )


def with_filter(where_filter: Filter) -> dict[str, Any]:
    """The keyword arguments that pass ``where_filter`` on: none without one."""
    return {} if where_filter is None else {"filter": where_filter}


def _refusing(name: str, search: str) -> Callable[[Filter], None]:
    def check(where_filter: Filter) -> None:
        if where_filter is not None:
            raise filter_refused(name, search)

    return check


Q = TypeVar("Q")

RETRIEVER_LIBRARIES = "a LangChain retriever or vector store, or a LlamaIndex retriever or index"


def searcher(built: Any, *, name: str, where: str | None) -> SearchFunction | None:
    """The search function of a library retriever, store or index, or ``None`` if it is none."""
    if inspect.isclass(built):
        return None
    if LANGCHAIN_STORE.describes(built):
        search = library_method(built, "similarity_search", LANGCHAIN_STORE, name, where)
        return lambda question, k, where_filter: search(question, k=k, **with_filter(where_filter))
    if LANGCHAIN_RETRIEVER.describes(built):
        return _langchain_retriever(built, name=name, where=where)
    if LLAMAINDEX_RETRIEVER.describes(built):
        return _llamaindex_retriever(built, name=name, where=where)
    if LLAMAINDEX_INDEX.describes(built):
        return _llamaindex_index(built, name=name, where=where)
    return None


def batcher(built: Any, *, name: str, where: str | None) -> BatchFunction | None:
    """The batch function of a library retriever or index, or ``None`` if it has none.

    A LangChain retriever answers a batch through its ``batch`` (its own
    thread pool); a LlamaIndex retriever through ``aretrieve``, gathered.
    """
    if inspect.isclass(built):
        return None
    if LANGCHAIN_RETRIEVER.describes(built) and callable(getattr(built, "batch", None)):
        return _per_k(
            _langchain_sized(built),
            lambda retriever, questions, where_filter: retriever.batch(
                questions, **with_filter(where_filter)
            ),
        )
    refuse = _refusing(name, "LlamaIndex retrieval (its filters are MetadataFilters)")
    if LLAMAINDEX_RETRIEVER.describes(built) and callable(getattr(built, "aretrieve", None)):
        top_k = _llamaindex_top_k(built)

        def batch(questions: list[str], k: int, where_filter: Filter) -> Any:
            refuse(where_filter)
            return _gathered(top_k(k), questions)

        return batch
    if LLAMAINDEX_INDEX.describes(built) and callable(getattr(built, "as_retriever", None)):

        def gathered(retriever: Any, questions: list[str], where_filter: Filter) -> Any:
            refuse(where_filter)
            return _gathered(retriever, questions)

        return _per_k(lambda k: built.as_retriever(similarity_top_k=k), gathered)
    return None


def _gathered(retriever: Any, questions: list[str]) -> list[Any]:
    # Imported here: asyncio (and ssl, which it loads) would add to the start-up of
    # every pytest process, the xdist controller and each worker, for a batch path
    # that only LlamaIndex retrievers take.
    import asyncio

    async def every() -> list[Any]:
        return list(await asyncio.gather(*(retriever.aretrieve(q) for q in questions)))

    return asyncio.run(every())


def _langchain_sized(built: Any) -> Callable[[int], Any]:
    # A LangChain retriever returns as many documents as its own setting says
    # (BM25Retriever.k, VectorStoreRetriever.search_kwargs["k"]); a copy with
    # that setting at the case's k is made once per k.
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

    return sized


def _llamaindex_top_k(built: Any) -> Callable[[int], Any]:
    # LlamaIndex retrievers keep their k in similarity_top_k (a settable
    # property on VectorIndexRetriever); it is set to the case's k before
    # each question.
    settable = isinstance(getattr(built, "similarity_top_k", None), int)

    def at(k: int) -> Any:
        if settable and built.similarity_top_k != k:
            with contextlib.suppress(AttributeError):  # read-only: it returns what it returns
                built.similarity_top_k = k
        return built

    return at


def _langchain_retriever(built: Any, *, name: str, where: str | None) -> SearchFunction:
    library_method(built, "invoke", LANGCHAIN_RETRIEVER, name, where)
    return _per_k(
        _langchain_sized(built),
        lambda retriever, question, where_filter: retriever.invoke(
            question, **with_filter(where_filter)
        ),
    )


def _llamaindex_retriever(built: Any, *, name: str, where: str | None) -> SearchFunction:
    # Results are NodeWithScore, read through .node.
    retrieve = library_method(built, "retrieve", LLAMAINDEX_RETRIEVER, name, where)
    top_k = _llamaindex_top_k(built)
    refuse = _refusing(name, "LlamaIndex retrieve (its filters are MetadataFilters)")

    def search(question: str, k: int, where_filter: Filter) -> Any:
        refuse(where_filter)
        top_k(k)
        return retrieve(question)

    return search


def _llamaindex_index(built: Any, *, name: str, where: str | None) -> SearchFunction:
    as_retriever = library_method(built, "as_retriever", LLAMAINDEX_INDEX, name, where)
    refuse = _refusing(name, "LlamaIndex retrieve (its filters are MetadataFilters)")

    def ask(retriever: Any, question: str, where_filter: Filter) -> Any:
        refuse(where_filter)
        return retriever.retrieve(question)

    return _per_k(lambda k: as_retriever(similarity_top_k=k), ask)


def _per_k(
    make: Callable[[int], Any], ask: Callable[[Any, Q, Filter], Any]
) -> Callable[[Q, int, Filter], Any]:
    """A function asking a retriever made by ``make(k)``, made once for each k.

    ``Q`` is a question, or a list of them for a batch.
    """
    made: dict[int, Any] = {}

    def search(question: Q, k: int, where_filter: Filter) -> Any:
        if k not in made:
            made[k] = make(k)
        return ask(made[k], question, where_filter)

    return search
