"""The shapes user code comes in: chunkers, retrievers, and what they return."""

from __future__ import annotations

import inspect
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from . import adapters
from .chunks import Chunk
from .errors import USER_FAULTS, ChunkrecallError, describe, raised, user_traceback
from .ranks import distinct
from .settings import did_you_mean

ChunkFunction = Callable[[str], Any]
SearchFunction = Callable[[str, int], Any]

CHUNK_SHAPES = (
    "str, a mapping with 'text' (and optionally 'start'), a pytest_chunkrecall.Chunk, "
    "or an object with .text or .page_content"
)
RESULT_SHAPES = (
    "a Chunk, an int index into the chunk list, a str, an object with .text or "
    ".page_content, or a (result, score) pair of one of these"
)
CONFIGURED = (
    "is an object that is already configured, so chunker_args cannot be passed to it; "
    "remove chunker_args, or name its class or a factory instead"
)
_SPLITTING_METHODS = ("split_text", "chunk", "split", "__call__")
_SEARCH_METHODS = ("retrieve", "search", "invoke", "similarity_search")
_START_ATTRIBUTES = ("start_index", "start_char_idx", "start")


@dataclass(frozen=True)
class Retrieved:
    """One search result: its rank (1-based), its text, and the chunk it is (when known)."""

    rank: int
    text: str
    chunk: Chunk | None


def chunk_function(
    obj: Any, args: Mapping[str, Any], *, name: str, where: str | None
) -> ChunkFunction:
    """A function ``text -> chunks`` from what a chunker entry point names.

    A function ``chunk(text, **args)`` is called per document; a class is
    instantiated with ``args`` and its splitting method used; a factory
    ``make(**args)`` is called once for such an object. Library chunkers
    (see :mod:`.adapters`) are recognised first, so that their offsets are used.
    """
    if inspect.isclass(obj):
        instance = _call(obj, adapters.constructor_args(obj, args), name=name, where=where)
        return _splitter(instance, name=name, where=where)
    if _is_function(obj):
        if _accepts(obj, ("text",), args):
            return lambda text: obj(text, **args)
        if _accepts(obj, (), args):
            return _splitter(_call(obj, args, name=name, where=where), name=name, where=where)
        raise ChunkrecallError(
            f"chunker {name} cannot be called as {name}(text, **chunker_args) with "
            f"chunker_args {dict(args)}: its signature is {_signature(obj)}",
            where=where,
        )
    adapted = adapters.splitter(obj, args, name=name, where=where)
    if adapted is not None:
        return adapted
    if args:
        raise ChunkrecallError(
            f"chunker {name} {CONFIGURED}",
            where=where,
        )
    return _splitter(obj, name=name, where=where)


def check_arguments(obj: Any, args: Mapping[str, Any], *, role: str = "chunker") -> str | None:
    """Why the chunker (or retriever factory) ``obj`` cannot take ``args``, or ``None``.

    A chunker is ``chunk(text, **args)``, a class or factory built with ``args``,
    or a configured object (which takes none, but where a library configures it
    at call time); a retriever factory is called with the chunks and ``args``.
    """
    if role == "chunker" and not inspect.isclass(obj) and not _is_function(obj):
        if not args:
            return None
        try:
            adapted = adapters.splitter(obj, args, name="", where=None)
        except ChunkrecallError as exc:
            return exc.message
        if adapted is not None:
            return None
        return CONFIGURED
    if role == "chunker":
        leading: tuple[tuple[str, ...], ...] = (
            ((), ("text",)) if inspect.isclass(obj) else (("text",), ())
        )
    else:
        leading = (("chunks",),)
    if any(_accepts(obj, first, args) for first in leading):
        return None
    try:
        parameters = dict(inspect.signature(obj).parameters)
    except (TypeError, ValueError):
        parameters = {}
    takes = [p for p in parameters if p not in ("self", "text", "chunks")]
    unknown = [name for name in args if name not in parameters]
    if unknown:
        hints = "".join(did_you_mean(name, tuple(takes)) for name in unknown)
        return f"it takes no argument {', '.join(map(repr, unknown))} (it takes {', '.join(takes) or 'none'}){hints}"
    return (
        f"it cannot be called with the arguments {dict(args)} (its signature is {_signature(obj)})"
    )


def pieces(output: Any, *, name: str, doc: str) -> list[tuple[str, int | None]]:
    """The ``(text, start offset or None)`` of each chunk a chunker returned for ``doc``."""
    if output is None or isinstance(output, str | bytes | Mapping) or not _iterable(output):
        raise ChunkrecallError(
            f"chunker {name} returned {_shape(output)} for {doc}; it must return a list of "
            f"chunks, each {CHUNK_SHAPES}"
        )
    result = []
    for number, item in enumerate(output):
        try:
            text, start = _chunk_text(item)
        except USER_FAULTS as exc:  # a property of the user's chunk object that raised
            raise ChunkrecallError(
                f"chunker {name}: reading chunk {number} of {doc} raised {describe(exc)}:\n"
                f"{user_traceback(exc)}"
            ) from None
        if text is None:
            keys = (
                f" without a 'text' key (its keys: {', '.join(map(str, item))})"
                if isinstance(item, Mapping)
                else ""
            )
            raise ChunkrecallError(
                f"chunker {name} returned {_shape(item)}{keys} as chunk {number} of {doc}; "
                f"each chunk must be {CHUNK_SHAPES}"
            )
        result.append((text, start))
    return result


def search_function(built: Any, *, name: str, where: str | None) -> SearchFunction:
    """A function ``(question, k) -> results`` from what a retriever factory returned."""
    adapted = adapters.searcher(built, name=name, where=where)
    if adapted is not None:
        return adapted
    for method_name in _SEARCH_METHODS:
        method = getattr(built, method_name, None)
        if callable(method) and not inspect.isclass(built):
            return _with_k(
                method, keyword=method_name == "similarity_search", fixed=method_name == "invoke"
            )
    if callable(built) and not inspect.isclass(built):
        return _with_k(built, keyword=False, fixed=False)
    raise ChunkrecallError(
        f"retriever {name} returned {_shape(built)}; the factory must return a function "
        "search(question, k), an object with a retrieve(question, k), search or invoke method, "
        f"or {adapters.RETRIEVER_LIBRARIES}",
        where=where,
    )


def retrieved(
    results: Any, *, chunks: Sequence[Chunk], by_text: Mapping[str, int], name: str, k: int
) -> list[Retrieved]:
    """The first ``k`` search results as :class:`Retrieved`, in rank order."""
    if results is None or isinstance(results, str | bytes | Mapping) or not _iterable(results):
        raise ChunkrecallError(
            f"retriever {name} returned {_shape(results)}; it must return a list of results, "
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
    # numbers.Integral and numbers.Real, not int and float: numpy's integers and
    # float32 scores (what an argsort over a score vector gives) are no subclasses.
    if isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], numbers.Real):
        item = item[0]  # (result, score)
    if not isinstance(item, str | numbers.Integral | Chunk | Mapping) and hasattr(item, "node"):
        item = item.node  # a scored node, as LlamaIndex returns
    index: Any = None
    text: Any = None
    if isinstance(item, numbers.Integral) and not isinstance(item, bool):
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
        text = _text_of(item)
    if index is not None:
        if isinstance(index, bool) or not isinstance(index, numbers.Integral):
            raise ChunkrecallError(
                f"retriever {name} returned index {index!r} at rank {rank}; an index must be a "
                "whole number"
            )
        if not 0 <= int(index) < len(chunks):
            raise ChunkrecallError(
                f"retriever {name} returned index {index!r} at rank {rank}, but the chunk "
                f"list has indexes 0 to {len(chunks) - 1}"
            )
        return Retrieved(rank, chunks[int(index)].text, chunks[int(index)])
    if not isinstance(text, str):
        raise ChunkrecallError(
            f"retriever {name} returned {_shape(result)} at rank {rank}; each result must be "
            f"{RESULT_SHAPES}"
        )
    known = by_text.get(text)
    return Retrieved(rank, text, chunks[known] if known is not None else None)


def _chunk_text(item: Any) -> tuple[str | None, int | None]:
    if isinstance(item, str):
        return item, None
    if isinstance(item, Chunk):
        return item.text, item.start
    if isinstance(item, Mapping):
        text = item.get("text")
        return (text if isinstance(text, str) else None), _offset(item.get("start"))
    text = _text_of(item)
    start = None
    for attribute in _START_ATTRIBUTES:
        start = _offset(getattr(item, attribute, None))
        if start is not None:
            break
    metadata = getattr(item, "metadata", None)
    if start is None and isinstance(metadata, Mapping):
        start = _offset(metadata.get("start_index"))
    return text, start


def _text_of(item: Any) -> str | None:
    for attribute in ("text", "page_content"):
        value = getattr(item, attribute, None)
        if isinstance(value, str):
            return value
    return None


def _offset(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _splitter(instance: Any, *, name: str, where: str | None) -> ChunkFunction:
    adapted = adapters.splitter(instance, {}, name=name, where=where)
    if adapted is not None:
        return adapted
    for method_name in _SPLITTING_METHODS:
        method = getattr(instance, method_name, None)
        if callable(method) and not inspect.isclass(instance):
            return method  # type: ignore[no-any-return]
    raise ChunkrecallError(
        f"chunker {name} gave {_shape(instance)}, which is not a chunker: expected a function "
        f"chunk(text, **chunker_args), a class or object with a "
        f"{' / '.join(m for m in _SPLITTING_METHODS if m != '__call__')} method, "
        f"or {adapters.CHUNKER_LIBRARIES}",
        where=where,
    )


def _call(factory: Any, args: Mapping[str, Any], *, name: str, where: str | None) -> Any:
    try:
        return factory(**args)
    except USER_FAULTS as exc:
        raise ChunkrecallError(
            f"chunker {name}(**{dict(args)}) failed: {raised(exc)}",
            where=where,
        ) from None


def _with_k(method: Callable[..., Any], *, keyword: bool, fixed: bool) -> SearchFunction:
    if keyword:
        return lambda question, k: method(question, k=k)
    if not fixed and _accepts(method, ("question", "k"), {}):
        return lambda question, k: method(question, k)
    return lambda question, k: method(question)


def _accepts(function: Any, positional: tuple[str, ...], keywords: Mapping[str, Any]) -> bool:
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return bool(positional)  # builtins without a signature: assume the usual call
    try:
        signature.bind(*positional, **keywords)
    except TypeError:
        return False
    return True


def _signature(function: Any) -> str:
    try:
        return f"{getattr(function, '__name__', 'chunker')}{inspect.signature(function)}"
    except (TypeError, ValueError):
        return "unknown"


def _is_function(obj: Any) -> bool:
    return inspect.isroutine(obj) or type(obj).__name__ == "partial"


def _iterable(obj: Any) -> bool:
    try:
        iter(obj)
    except TypeError:
        return False
    return True


def _shape(obj: Any) -> str:
    if obj is None:
        return "None"
    if isinstance(obj, str | bytes):
        return f"a {type(obj).__name__} ({obj[:40]!r})"
    name = f"{type(obj).__module__}.{type(obj).__qualname__}".removeprefix("builtins.")
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name}"
