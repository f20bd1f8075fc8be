"""The shapes a chunker comes in (a function, a class, a configured object) and what it returns."""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

from ..callables import accepts, is_function, iterable, shape, signature, text_of
from ..config.settings import did_you_mean
from ..errors import USER_FAULTS, ChunkrecallError, describe, raised, user_traceback
from . import adapters
from .adapters import ChunkFunction
from .chunk import Chunk

CHUNK_SHAPES = (
    "str, a mapping with 'text' (and optionally 'start'), a pytest_chunkrecall.Chunk, "
    "or an object with .text or .page_content"
)
CONFIGURED = (
    "is an object that is already configured, so chunker_args cannot be passed to it; "
    "remove chunker_args, or name its class or a factory instead"
)
_SPLITTING_METHODS = ("split_text", "chunk", "split", "__call__")
_START_ATTRIBUTES = ("start_index", "start_char_idx", "start")


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
    if is_function(obj):
        if accepts(obj, ("text",), args):
            return lambda text: obj(text, **args)
        if accepts(obj, (), args):
            return _splitter(_call(obj, args, name=name, where=where), name=name, where=where)
        raise ChunkrecallError(
            f"chunker {name} cannot be called as {name}(text, **chunker_args) with "
            f"chunker_args {dict(args)}: its signature is {signature(obj)}",
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
    if role == "chunker" and not inspect.isclass(obj) and not is_function(obj):
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
    if any(accepts(obj, first, args) for first in leading):
        return None
    try:
        parameters = dict(inspect.signature(obj).parameters)
    except (TypeError, ValueError):
        parameters = {}
    takes = [parameter for parameter in parameters if parameter not in ("self", "text", "chunks")]
    unknown = [name for name in args if name not in parameters]
    if unknown:
        hints = "".join(did_you_mean(name, tuple(takes)) for name in unknown)
        return f"it takes no argument {', '.join(map(repr, unknown))} (it takes {', '.join(takes) or 'none'}){hints}"
    return (
        f"it cannot be called with the arguments {dict(args)} (its signature is {signature(obj)})"
    )


def pieces(output: Any, *, name: str, doc: str) -> list[tuple[str, int | None]]:
    """The ``(text, start offset or None)`` of each chunk a chunker returned for ``doc``."""
    if output is None or isinstance(output, str | bytes | Mapping) or not iterable(output):
        raise ChunkrecallError(
            f"chunker {name} returned {shape(output)} for {doc}; it must return a list of "
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
                f"chunker {name} returned {shape(item)}{keys} as chunk {number} of {doc}; "
                f"each chunk must be {CHUNK_SHAPES}"
            )
        result.append((text, start))
    return result


def _chunk_text(item: Any) -> tuple[str | None, int | None]:
    if isinstance(item, str):
        return item, None
    if isinstance(item, Chunk):
        return item.text, item.start
    if isinstance(item, Mapping):
        text = item.get("text")
        return (text if isinstance(text, str) else None), _offset(item.get("start"))
    text = text_of(item)
    start = None
    for attribute in _START_ATTRIBUTES:
        start = _offset(getattr(item, attribute, None))
        if start is not None:
            break
    metadata = getattr(item, "metadata", None)
    if start is None and isinstance(metadata, Mapping):
        start = _offset(metadata.get("start_index"))
    return text, start


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
        f"chunker {name} gave {shape(instance)}, which is not a chunker: expected a function "
        f"chunk(text, **chunker_args), a class or object with a "
        f"{' / '.join(method for method in _SPLITTING_METHODS if method != '__call__')} method, "
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
