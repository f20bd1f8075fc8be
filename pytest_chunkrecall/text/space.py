"""A corpus in one match space: its texts as written, or folded, and the word index over them.

Match modes compare text in two spaces: ``exact`` the text as written,
``normalized`` and ``fuzzy`` (at any threshold) the folded text
(:func:`.folding.fold`). What a space holds is as large as the corpus, or nearly
(the folded copy, the index's postings), so each corpus has one of each space
that every matcher of that space reads, however many modes and thresholds its
cases use.
"""

from __future__ import annotations

from collections.abc import Sequence

from .folding import Folded, fold
from .index import WordIndex


class MatchSpace:
    """The texts of a corpus as one match space compares them, each made when first needed."""

    def __init__(self, texts: Sequence[str], *, folded: bool) -> None:
        self.originals = texts
        self.folded = folded
        self._folds: list[Folded | None] = [None] * len(texts)
        self._texts: list[str] | None = None
        self._index: WordIndex | None = None
        # How many searches of the corpus are known to come, for the index to
        # choose between scanning and indexing (see :mod:`.index`).
        self._known_searches = 0

    @staticmethod
    def folds(mode: str) -> bool:
        """Whether match mode ``mode`` compares folded text."""
        return mode != "exact"

    def text(self, number: int) -> str:
        """Text ``number`` in this space: as written, or folded."""
        return self.fold(number).text if self.folded else self.originals[number]

    def texts(self) -> list[str]:
        """Every text in this space, in corpus order (kept once made)."""
        if self._texts is None:
            self._texts = [self.text(number) for number in range(len(self.originals))]
        return self._texts

    def fold(self, number: int) -> Folded:
        """Text ``number`` folded, with its map back to the offsets as written."""
        folded = self._folds[number]
        if folded is None:
            folded = self._folds[number] = fold(self.originals[number])
        return folded

    def expect_searches(self, count: int) -> None:
        """Know that ``count`` searches of this space will come; the largest count told wins."""
        self._known_searches = max(self._known_searches, count)

    def index(self) -> WordIndex:
        """The index of the words of every text in this space, built (lazily) once: at
        once, rather than after scans, when many searches are known to come."""
        if self._index is None:
            self._index = WordIndex(self.texts(), known_searches=self._known_searches)
        return self._index
