"""The chunk: one retrievable piece of the corpus, and where it sits in its document."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Chunk:
    """One retrievable piece of the corpus.

    ``doc`` is the document id (its path relative to the rootdir), ``index`` the
    position in the suite's chunk list, and ``start``/``end`` the character
    offsets of ``text`` in the document (whose text there may differ from
    ``text`` in whitespace or case, where the chunker changed them), or ``None``
    when they cannot be known (the chunker rewrote the text and gave no offsets).
    """

    text: str
    doc: str
    index: int
    start: int | None = None
    end: int | None = None

    @property
    def placed(self) -> bool:
        """Whether the offsets of this chunk in its document are known."""
        return self.start is not None
