"""Bounds on what user code and settings may ask of a run, so that a mistake fails fast
with a message instead of filling the memory or running for ever."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ..errors import USER_FAULTS, ChunkrecallError, raised

MAX_K = 10_000  # chunks asked for per question
OUTPUT_FACTOR = 20  # a chunker's output for a document, in multiples of the document


def bounded_output(output: Any, text: str, *, name: str, doc: str) -> Any:
    """``output`` of a chunker for the document ``text``, stopped once it passes
    :data:`OUTPUT_FACTOR` times the document's length in characters.

    A generator could run without end; a list has ended, but ``[text] * 200_000``
    costs nothing to return and gigabytes to place and index, so a list is read
    through the same bound. An error the generator raises while it runs is
    reported as the chunker's. What is no sequence of chunks (text, a mapping,
    ``None``) is passed through as it is, for the caller to say what it is.
    """
    if output is None or isinstance(output, str | bytes | Mapping):
        return output
    try:
        items = iter(output)
    except TypeError:
        return output
    except USER_FAULTS as exc:
        raise ChunkrecallError(f"chunker {name} raised on {doc}: {raised(exc)}") from None
    budget = OUTPUT_FACTOR * len(text) + 1_000
    return _bounded(items, budget, name=name, doc=doc, size=len(text))


def _bounded(
    output: Iterator[Any], budget: int, *, name: str, doc: str, size: int
) -> Iterator[Any]:
    total = 0
    while True:
        try:
            item = next(output)
        except StopIteration:
            return
        except USER_FAULTS as exc:
            raise ChunkrecallError(f"chunker {name} raised on {doc}: {raised(exc)}") from None
        total += max(1, _length(item))
        if total > budget:
            raise ChunkrecallError(
                f"chunker {name} was stopped on {doc}: its chunks passed {OUTPUT_FACTOR} times "
                f"the document's {size:,} characters ({total:,} so far); a chunker must end, "
                "and overlap cannot repeat the text that often"
            )
        yield item


def _length(item: Any) -> int:
    text = item if isinstance(item, str) else None
    if isinstance(item, Mapping):
        text = item.get("text")
    elif text is None:
        try:
            text = getattr(item, "text", None) or getattr(item, "page_content", None)
        except USER_FAULTS:
            text = None  # shapes.pieces reads it again and reports the error
    return len(text) if isinstance(text, str) else 0


def k_problem(value: int) -> str | None:
    """Why ``value`` is no number of chunks to ask for, or ``None``."""
    if value < 1:
        return f"must be at least 1, not {value}"
    if value > MAX_K:
        return f"must be at most {MAX_K:,}, not {value:,}; no reader looks that far down a ranking"
    return None
