"""Ranks as a reader counts them: a chunk the retriever returns twice is one chunk, at its
first rank, or a retriever that repeats its best chunk would look better at k than it is."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .shapes import Retrieved


class RetrievalWarning(UserWarning):
    """A retriever's answer the plugin had to correct, such as the same chunk twice."""


def distinct(found: Sequence[Retrieved], *, name: str) -> list[Retrieved]:
    """``found`` with each chunk once, at its first rank, the ranks after it closed up.

    A result that is no chunk of the list (text only) is the same as another with
    the same text. A repeat is said once per message in pytest's warnings summary,
    which groups the cases it happened to.
    """
    seen: set[object] = set()
    result: list[Retrieved] = []
    for item in found:
        key = (item.chunk.doc, item.chunk.index) if item.chunk is not None else item.text
        if key in seen:
            continue
        seen.add(key)
        result.append(item if item.rank == len(result) + 1 else replace(item, rank=len(result) + 1))
    if len(result) < len(found):
        warnings.warn(
            RetrievalWarning(
                f"retriever {name} returned the same chunk more than once for a question; "
                "each chunk counts once, at its first rank"
            ),
            stacklevel=3,
        )
    return result
