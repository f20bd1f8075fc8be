"""What a user object accepts, and how to name one in a message."""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any


def text_of(item: Any) -> str | None:
    for attribute in ("text", "page_content"):
        value = getattr(item, attribute, None)
        if isinstance(value, str):
            return value
    return None


def accepts(function: Any, positional: tuple[str, ...], keywords: Mapping[str, Any]) -> bool:
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return bool(positional)  # builtins without a signature: assume the usual call
    try:
        signature.bind(*positional, **keywords)
    except TypeError:
        return False
    return True


def signature(function: Any) -> str:
    try:
        return f"{getattr(function, '__name__', 'chunker')}{inspect.signature(function)}"
    except (TypeError, ValueError):
        return "unknown"


def is_function(obj: Any) -> bool:
    return inspect.isroutine(obj) or type(obj).__name__ == "partial"


def iterable(obj: Any) -> bool:
    try:
        iter(obj)
    except TypeError:
        return False
    return True


def shape(obj: Any) -> str:
    if obj is None:
        return "None"
    if isinstance(obj, str | bytes):
        return f"a {type(obj).__name__} ({obj[:40]!r})"
    name = f"{type(obj).__module__}.{type(obj).__qualname__}".removeprefix("builtins.")
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name}"
