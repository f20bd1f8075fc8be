"""Match modes: whether a chunk's text contains a needle, exactly, normalized or fuzzily."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from . import edges
from .folding import fold_text

# rapidfuzz is imported where fuzzy scoring is done: a run that needs none never loads it
if TYPE_CHECKING:
    from rapidfuzz.distance import ScoreAlignment

# A number as a needle writes it: digits, with decimal or thousands marks between them, and
# its sign. A minus (hyphen or U+2212) is a sign where it does not follow a letter or digit:
# "-15 percent" is not "15 percent", but "COVID-19" and "10-15 days" hold no negative number.
_NUMBER = re.compile(r"(?:(?<![\w.,])[-\u2212])?\d+(?:[.,]\d+)*")


@dataclass(frozen=True)
class Matcher:
    """One match mode, applied the same way to hits, split detection and absent detection.

    ``fuzzy`` forgives typos, never numbers: "15 percent" does not match "16 percent",
    so a fuzzy gate cannot pass on the wrong figure. In every mode a number is matched
    whole (:mod:`.edges`): "30 days" is not in "130 days".
    """

    mode: str = "normalized"
    threshold: float = 90.0

    def prepare(self, text: str) -> str:
        """A needle, span or chunk text in this mode's match space."""
        return text.strip() if self.mode == "exact" else fold_text(text)

    def contains(self, text: str, needle: str) -> bool:
        """Whether prepared ``text`` holds prepared ``needle`` whole."""
        if self.mode != "fuzzy":
            return edges.holds(text, needle)
        if edges.holds(text, needle):
            return True
        from rapidfuzz import fuzz

        if len(text) < len(needle):
            # partial_ratio would align the shorter text inside the needle:
            # a chunk too short to hold the needle is compared whole instead.
            return fuzz.ratio(needle, text) >= self.threshold and self.numbers_agree(needle, text)
        return self.aligned(text, needle) is not None

    def aligned(self, text: str, needle: str) -> ScoreAlignment | None:
        """The best alignment of ``needle`` inside prepared ``text`` at or above the threshold
        whose numbers agree with the needle's, else ``None``."""
        from rapidfuzz import fuzz

        alignment = fuzz.partial_ratio_alignment(needle, text, score_cutoff=self.threshold)
        if alignment is None or not self.numbers_agree(
            needle, edges.with_whole_numbers(text, alignment.dest_start, alignment.dest_end)
        ):
            return None
        return alignment

    def score(self, text: str, needle: str) -> float:
        """Fuzzy score of the best alignment of ``needle`` inside ``text`` (0..100)."""
        from rapidfuzz import fuzz

        if len(text) < len(needle):
            return float(fuzz.ratio(needle, text))
        return float(fuzz.partial_ratio(needle, text))

    @staticmethod
    def numbers_agree(needle: str, aligned: str) -> bool:
        """Whether every number of ``needle`` appears, as the same number, in ``aligned`` text.

        The aligned text is widened to the whole numbers at its edges
        (:func:`.edges.with_whole_numbers`): "30" aligned inside "130" is read as 130.
        """
        wanted = [_signed(number) for number in _NUMBER.findall(needle)]
        if not wanted:
            return True
        present = {_signed(number) for number in _NUMBER.findall(aligned)}
        return all(number in present for number in wanted)


def _signed(number: str) -> str:
    """One spelling of a number's sign: the minus sign U+2212 is a hyphen-minus."""
    return number.replace("\u2212", "-")
