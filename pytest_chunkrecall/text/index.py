"""Finding every occurrence of a needle or span in the corpus without rescanning it.

One pass over the corpus builds an inverted index of its words. A pattern is
then found through its rarest word: a word inside the pattern is a whole word
of the text, the first word may be the end of a longer one, the last the start
of one. Only the candidates that word gives are compared with the pattern.

Building the index reads every word of the corpus in Python; a scan is one
``str.find`` per text, at C speed, a hundred times faster or more. A run of hits
never asks where a needle is, and a run with a few misses asks a few times. So
the first patterns are found by scanning the texts, and the index is built only
once those scans have read the corpus :data:`SCANS_BEFORE_INDEXING` times over.
A gold file of ``{from, to}`` spans looks for both ends of every span, hit or
miss: it builds the index after its first few dozen cases.

That rule is for not knowing how many patterns follow. A caller that knows
(``known_searches``: a run that lists every holder of every case's span, for the
JSON report or the HTML page, searches the corpus once per case) chooses as
hindsight would: at least :data:`SCANS_BEFORE_INDEXING` searches to come, and
the index is built at once, before the scans that would only have led to it.
"""

from __future__ import annotations

import heapq
import itertools
import re
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Sequence

from . import edges

_WORD = re.compile(r"\w+")

# How many times over the corpus is scanned before it is indexed: about as many
# scans as building the index costs. Scanning until the scans have cost what the
# index would is the rule that never pays more than twice the better choice made
# in hindsight, however many patterns follow (the ski-rental rule): a run that
# needs the index pays at most about as much again, and a run with a few misses
# never builds it.
SCANS_BEFORE_INDEXING = 128


class WordIndex:
    """Occurrences of patterns in a fixed list of texts (documents in match space).

    ``scans_before_indexing``: how many times over the texts may be scanned
    before the index is built (0: build it now). ``known_searches``: how many
    patterns are known to follow; as many as those scans, and it is built now.
    """

    def __init__(
        self,
        texts: Sequence[str],
        *,
        scans_before_indexing: int = SCANS_BEFORE_INDEXING,
        known_searches: int = 0,
    ) -> None:
        if known_searches >= scans_before_indexing:
            scans_before_indexing = 0
        self.texts = texts
        self._bases = array("q")
        self._postings: dict[str, array[int]] = {}
        self._indexed = False
        self._scan_budget = scans_before_indexing * sum(len(text) + 1 for text in texts)
        self._sorted: list[str] | None = None
        self._sorted_reversed: list[str] | None = None
        self._infix: dict[str, list[tuple[str, int]]] = {}
        self._vocabulary: tuple[list[str], str, array[int]] | None = None
        if self._scan_budget <= 0:
            self._build()

    @property
    def indexed(self) -> bool:
        """Whether the index of words has been built (until then, patterns are scanned for)."""
        return self._indexed

    def _build(self) -> None:
        # An occurrence per word of the corpus: 4 bytes each, rather than 8,
        # wherever offsets fit (a corpus under 2 G characters).
        texts = self.texts
        typecode = "i" if sum(len(text) + 1 for text in texts) < 2**31 else "q"
        postings = self._postings
        base = 0
        for text in texts:
            self._bases.append(base)
            for match in _WORD.finditer(text):
                word = match.group()
                found = postings.get(word)
                if found is None:
                    found = postings[word] = array(typecode)
                found.append(base + match.start())
            base += len(text) + 1
        self._indexed = True

    def find(self, pattern: str) -> Iterator[tuple[int, int]]:
        """Every ``(text number, offset)`` where ``pattern`` occurs whole (a number not
        inside a longer one, :mod:`.edges`), in text order, lazily.

        Each anchor word's postings are already in text order, so the candidates
        are merged rather than collected and sorted: a caller that stops at the
        first occurrence it wants pays for the occurrences before it, not for all.
        """
        if not pattern:
            return
        tokens = list(_WORD.finditer(pattern))
        if not tokens or (not self._indexed and self._scan_budget > 0):
            yield from self._scan(pattern)
            return
        if not self._indexed:
            self._build()
        texts = self.texts
        for candidate in self._candidates(pattern, tokens):
            text_no, pos = self._split(candidate)
            text = texts[text_no]
            if pos >= 0 and text.startswith(pattern, pos) and edges.whole_at(text, pattern, pos):
                yield text_no, pos

    def _candidates(self, pattern: str, tokens: list[re.Match[str]]) -> Iterator[int]:
        """Global offsets where ``pattern`` may start, ascending, each once."""
        # Each word of the pattern could anchor the search: a word with a
        # non-word character of the pattern on both sides is a whole word of
        # the text; the last word may start a longer word, the first end one.
        # The anchor with the fewest occurrences wins, so that a pattern with
        # one rare word costs little even when its other words are everywhere.
        best: tuple[int, list[str], re.Match[str], bool] | None = None
        for token in tokens:
            word = token.group()
            if token.start() > 0 and token.end() < len(pattern):
                words, suffix = ([word] if word in self._postings else []), False
            elif token is tokens[-1] and token.start() > 0:
                words, suffix = self._prefixed(word), False
            elif token is tokens[0] and token.end() < len(pattern):
                words, suffix = self._suffixed(word), True
            else:
                continue
            count = self._count(words, limit=best[0] if best else None)
            if best is None or count < best[0]:
                best = (count, words, token, suffix)
        # A text position starts one word only, so no two anchor words (nor two
        # offsets inside words) give the same candidate: merging keeps each once.
        if best is None:  # a single word that may sit inside a longer one
            start = tokens[0].start()
            yield from heapq.merge(
                *(
                    _shifted(self._postings[text_word], at - start)
                    for text_word, at in self._containing(tokens[0].group())
                )
            )
            return
        _, words, token, suffix = best
        # where the token starts in the text, less its offset in the pattern
        streams = [
            _shifted(
                self._postings[word],
                (len(word) - len(token.group()) if suffix else 0) - token.start(),
            )
            for word in words
        ]
        yield from streams[0] if len(streams) == 1 else heapq.merge(*streams)

    def _count(self, words: list[str], *, limit: int | None) -> int:
        """How many occurrences ``words`` have together, counted no further than ``limit``."""
        total = 0
        for word in words:
            total += len(self._postings[word])
            if limit is not None and total >= limit:
                break
        return total

    def _split(self, offset: int) -> tuple[int, int]:
        """A global offset as ``(text number, offset in that text)``."""
        text_no = bisect_right(self._bases, offset) - 1
        if text_no < 0:
            return 0, -1
        return text_no, offset - self._bases[text_no]

    def _prefixed(self, word: str) -> list[str]:
        if self._sorted is None:
            self._sorted = sorted(self._postings)
        lo = bisect_left(self._sorted, word)
        hi = bisect_left(self._sorted, word + "\U0010ffff")
        return self._sorted[lo:hi]

    def _suffixed(self, word: str) -> list[str]:
        if self._sorted_reversed is None:
            self._sorted_reversed = sorted(word[::-1] for word in self._postings)
        key = word[::-1]
        lo = bisect_left(self._sorted_reversed, key)
        hi = bisect_left(self._sorted_reversed, key + "\U0010ffff")
        return [word[::-1] for word in self._sorted_reversed[lo:hi]]

    def _containing(self, word: str) -> list[tuple[str, int]]:
        """Every ``(text word, offset)`` where ``word`` sits inside a word of the texts."""
        found = self._infix.get(word)
        if found is None:
            if self._vocabulary is None:
                # The vocabulary as one string, searched at C speed: a word
                # (no newline in it) is never found across two of them.
                words = list(self._postings)
                starts = array(
                    "q", itertools.accumulate((len(word) + 1 for word in words[:-1]), initial=0)
                )
                self._vocabulary = (words, "\n".join(words), starts)
            words, joined, starts = self._vocabulary
            found = []
            at = joined.find(word)
            while at >= 0:
                number = bisect_right(starts, at) - 1
                found.append((words[number], at - starts[number]))
                at = joined.find(word, at + 1)
            self._infix[word] = found
        return found

    def _scan(self, pattern: str) -> Iterator[tuple[int, int]]:
        """Every occurrence of ``pattern``, text by text, each text read as it is reached."""
        for text_no, text in enumerate(self.texts):
            self._scan_budget -= len(text) + 1
            at = edges.find(text, pattern)
            while at >= 0:
                yield text_no, at
                at = edges.find(text, pattern, at + 1)


def _shifted(postings: array[int], shift: int) -> Iterator[int]:
    """The offsets of ``postings`` moved by ``shift``, in their (ascending) order."""
    if not shift:
        return iter(postings)
    return (offset + shift for offset in postings)
