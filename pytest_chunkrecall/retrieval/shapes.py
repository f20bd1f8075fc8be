"""The shapes a retriever and its results come in."""

from __future__ import annotations

import inspect
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..callables import accepts, iterable, shape, text_of
from ..chunking.chunk import Chunk
from ..errors import USER_FAULTS, ChunkrecallError, describe, user_traceback
from . import adapters
from .adapters import BatchFunction, Filter, SearchFunction
from .duplicates import distinct

RESULT_SHAPES = (
    "a Chunk, an int index into the chunk list, a str, an object with .text or "
    ".page_content, or a (result, score) pair of one of these"
)


_SEARCH_METHODS = ("retrieve", "search", "invoke", "similarity_search")

# A whole number and a score as results carry them: numbers.Integral and
# numbers.Real, not int and float, since numpy's integers and float32 scores
# (what an argsort over a score vector gives) are no subclasses. int and float
# come first: they answer at once, where the ABCs look up a registry each time.
_WHOLE = (int, numbers.Integral)
_REAL = (float, int, numbers.Real)


@dataclass(frozen=True)
class Retrieved:
    """One search result: its rank (1-based), its text, and the chunk it is (when known).

    ``score`` is the score the retriever gave it, where it gives one; ``source``
    the result as the retriever returned it (a reranker from the same library
    is handed it back); ``candidate_rank``, after a reranker, its rank among
    the first stage's candidates.
    """

    rank: int
    text: str
    chunk: Chunk | None
    score: float | None = None
    source: Any = field(default=None, compare=False, repr=False)
    candidate_rank: int | None = None


def search_function(built: Any, *, name: str, where: str | None) -> SearchFunction:
    """A function ``(question, k) -> results`` from what a retriever factory returned."""
    adapted = adapters.searcher(built, name=name, where=where)
    if adapted is not None:
        return adapted
    for method_name in _SEARCH_METHODS:
        method = getattr(built, method_name, None)
        if callable(method) and not inspect.isclass(built):
            return _with_k(
                method,
                keyword=method_name == "similarity_search",
                fixed=method_name == "invoke",
                refused=_refused_by(method, name, f"{method_name} method"),
            )
    if callable(built) and not inspect.isclass(built):
        return _with_k(
            built, keyword=False, fixed=False, refused=_refused_by(built, name, "search")
        )
    raise ChunkrecallError(
        f"retriever {name} returned {shape(built)}; the factory must return a function "
        "search(question, k), an object with a retrieve(question, k), search or invoke method, "
        f"or {adapters.RETRIEVER_LIBRARIES}",
        where=where,
    )


def batch_function(built: Any, *, name: str, where: str | None) -> BatchFunction | None:
    """A function ``(questions, k) -> one result list per question``, where the retriever has one.

    A library retriever's own batching, or the ``search_batch(questions, k)``
    method of the user's retriever object.
    """
    adapted = adapters.batcher(built, name=name, where=where)
    if adapted is not None:
        return adapted
    method = getattr(built, "search_batch", None)
    if callable(method) and not inspect.isclass(built):
        refused = _refused_by(method, name, "search_batch method")

        def batch(questions: list[str], k: int, where_filter: Filter) -> Any:
            refused(where_filter)
            return method(questions, k, **adapters.with_filter(where_filter))

        return batch
    return None


def takes_filter(method: Callable[..., Any]) -> bool:
    """Whether ``method`` takes a ``filter`` keyword argument (by name, or through ``**``)."""
    try:
        parameters = inspect.signature(method).parameters.values()
    except (TypeError, ValueError):
        return True  # no signature to read: let the call say
    return any(
        (parameter.name == "filter" and parameter.kind is not parameter.POSITIONAL_ONLY)
        or parameter.kind is parameter.VAR_KEYWORD
        for parameter in parameters
    )


def _refused_by(method: Callable[..., Any], name: str, search: str) -> Callable[[Filter], None]:
    """A check that raises :func:`.adapters.filter_refused` when ``method`` is given a filter
    it cannot take."""
    takes = takes_filter(method)

    def check(where_filter: Filter) -> None:
        if where_filter is not None and not takes:
            raise adapters.filter_refused(name, search)

    return check


def retrieved(
    results: Any, *, chunks: Sequence[Chunk], by_text: Mapping[str, int], name: str, k: int
) -> list[Retrieved]:
    """The first ``k`` search results as :class:`Retrieved`, in rank order."""
    if results is None or isinstance(results, str | bytes | Mapping) or not iterable(results):
        raise ChunkrecallError(
            f"retriever {name} returned {shape(results)}; it must return a list of results, "
            f"each {RESULT_SHAPES}"
        )
    found = []
    for rank, result in enumerate(results, start=1):
        if rank > k:
            break
        try:
            found.append(_one_result(result, rank, chunks=chunks, by_text=by_text, name=name))
        except ChunkrecallError:
            raise
        except USER_FAULTS as exc:  # a property of the user's result object that raised
            raise ChunkrecallError(
                f"retriever {name}: reading its result at rank {rank} raised {describe(exc)}:\n"
                f"{user_traceback(exc)}"
            ) from None
    return distinct(found, name=name)


def _one_result(
    result: Any, rank: int, *, chunks: Sequence[Chunk], by_text: Mapping[str, int], name: str
) -> Retrieved:
    item = result
    score: Any = None
    if isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], _REAL):
        item, score = item  # (result, score)
    if not isinstance(item, (str, int, numbers.Integral, Chunk, Mapping)) and hasattr(item, "node"):
        score = getattr(item, "score", None)
        item = item.node  # a scored node, as LlamaIndex returns
    found = _one_item(item, result, rank, chunks=chunks, by_text=by_text, name=name)
    if score is not None and isinstance(score, _REAL) and not isinstance(score, bool):
        return replace(found, score=float(score))
    return found


def _one_item(
    item: Any,
    result: Any,
    rank: int,
    *,
    chunks: Sequence[Chunk],
    by_text: Mapping[str, int],
    name: str,
) -> Retrieved:
    index: Any = None
    text: Any = None
    if isinstance(item, _WHOLE) and not isinstance(item, bool):
        index = int(item)
    elif isinstance(item, Chunk):
        same = 0 <= item.index < len(chunks) and chunks[item.index].text == item.text
        index, text = (item.index if same else None), item.text
    elif isinstance(item, str):
        text = item
    elif isinstance(item, Mapping):
        index, text = item.get("index"), item.get("text")
    else:
        metadata = getattr(item, "metadata", None)
        if isinstance(metadata, Mapping):
            index = metadata.get("chunkrecall_index")
        text = text_of(item)
    if index is not None:
        if isinstance(index, bool) or not isinstance(index, _WHOLE):
            raise ChunkrecallError(
                f"retriever {name} returned index {index!r} at rank {rank}; an index must be a "
                "whole number"
            )
        if not 0 <= int(index) < len(chunks):
            raise ChunkrecallError(
                f"retriever {name} returned index {index!r} at rank {rank}, but the chunk "
                f"list has indexes 0 to {len(chunks) - 1}"
            )
        return Retrieved(rank, chunks[int(index)].text, chunks[int(index)], source=result)
    if not isinstance(text, str):
        raise ChunkrecallError(
            f"retriever {name} returned {shape(result)} at rank {rank}; each result must be "
            f"{RESULT_SHAPES}"
        )
    known = by_text.get(text)
    return Retrieved(rank, text, chunks[known] if known is not None else None, source=result)


def _with_k(
    method: Callable[..., Any],
    *,
    keyword: bool,
    fixed: bool,
    refused: Callable[[Filter], None],
) -> SearchFunction:
    with_k = keyword or (not fixed and accepts(method, ("question", "k"), {}))

    def search(question: str, k: int, where_filter: Filter) -> Any:
        refused(where_filter)
        options = adapters.with_filter(where_filter)
        if keyword:
            return method(question, k=k, **options)
        if with_k:
            return method(question, k, **options)
        return method(question, **options)

    return search
