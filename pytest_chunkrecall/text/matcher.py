"""Match modes: whether a chunk's text contains a needle, exactly, normalized or fuzzily."""

from __future__ import annotations

from dataclasses import dataclass

from rapidfuzz import fuzz

from .folding import fold_text


@dataclass(frozen=True)
class Matcher:
    """One match mode, applied the same way to hits, split detection and absent detection."""

    mode: str = "normalized"
    threshold: float = 90.0

    def prepare(self, text: str) -> str:
        """A needle, span or chunk text in this mode's match space."""
        return text.strip() if self.mode == "exact" else fold_text(text)

    def contains(self, text: str, needle: str) -> bool:
        """Whether prepared ``text`` holds prepared ``needle`` whole."""
        if self.mode != "fuzzy":
            return needle in text
        return self.score(text, needle) >= self.threshold

    def score(self, text: str, needle: str) -> float:
        """Fuzzy score of the best alignment of ``needle`` inside ``text`` (0..100)."""
        if len(text) < len(needle):
            # partial_ratio would align the shorter text inside the needle:
            # a chunk too short to hold the needle is compared whole instead.
            return float(fuzz.ratio(needle, text))
        return float(fuzz.partial_ratio(needle, text))
