"""The benchmarks' lean ``keywords:ranked`` ranks as the plain reading of its definition does."""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml
from hypothesis import example, given
from hypothesis import strategies as st

ROOT = Path(__file__).parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "benchmarks" / "project"))

import common_needles  # noqa: E402
import keywords  # noqa: E402

_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Piece:
    text: str


def reference(chunks: Sequence[Piece], question: str, k: int) -> list[int]:
    """The definition, read plainly: every chunk lowered and its spaces made one, then scanned."""
    texts = [" ".join(chunk.text.lower().split()) for chunk in chunks]
    words = _WORD.findall(question.lower())
    holding = [[n for n, t in enumerate(texts) if w in _WORD.findall(t)] for w in words]
    found = [numbers for numbers in holding if numbers]
    if not found:
        return []
    candidates = min(found, key=len)
    phrase = " ".join(words)
    whole = [n for n in candidates if phrase in texts[n]][:k]
    return (whole + [n for n in candidates if n not in whole])[:k]


# Few words, some inside others, cased and spaced every way, so that phrases
# recur, cross line breaks and start or end inside a longer word.
WORDS = ["ab", "abc", "bc", "Ab", "ABC", "x", "c_d", "9", "éa", "ÉA"]
SPACES = [" ", "  ", "\n", "\t ", "-", ", "]


def spaced(most: int) -> st.SearchStrategy[str]:
    pairs = st.tuples(st.sampled_from(WORDS), st.sampled_from(SPACES))
    return st.lists(pairs, max_size=most).map(lambda p: "".join(w + s for w, s in p))


@given(st.lists(spaced(12), min_size=1, max_size=8), spaced(4), st.integers(1, 4))
@example(["ab", "abc ab"], "bc ab", 2)  # the phrase starts inside a word, then ranks first
@example(["x", "x abc"], "x ab", 2)  # the phrase ends inside a word
@example(["x ab\nbc", "ab bc", "ab"], "AB  bc", 3)  # across a line break, cased, spaced
def test_it_ranks_as_the_reference_does(texts: list[str], question: str, k: int) -> None:
    chunks = [Piece(t) for t in texts]
    assert keywords.ranked(chunks)(question, k) == reference(chunks, question, k)


def test_it_ranks_the_common_needle_questions_as_the_reference_does(tmp_path: Path) -> None:
    _, gold = common_needles.write_project(tmp_path, corpus_chars=60_000, case_counts=(40,))
    texts = [path.read_text(encoding="utf-8") for path in sorted((tmp_path / "docs").iterdir())]
    chunks = [Piece(window) for t in texts for window in keywords.windows(t)]
    search = keywords.ranked(chunks)
    asked = yaml.safe_load(gold[40].read_text(encoding="utf-8"))["cases"]
    rankings = [search(case["question"], 5) for case in asked]
    assert rankings == [reference(chunks, case["question"], 5) for case in asked]
    # for most, the first chunk is one the question's span was taken from
    first = [chunks[r[0]].text.replace("\n", " ") if r else "" for r in rankings]
    assert sum(case["span"] in text for case, text in zip(asked, first, strict=True)) > 30


@given(st.lists(spaced(12), min_size=1, max_size=8), spaced(4), st.integers(1, 4))
@example(["x ab\nbc", "ab bc", "ab"], "AB  bc", 3)  # two phrase holders go behind the third
def test_misranked_puts_the_phrase_holders_last(texts: list[str], question: str, k: int) -> None:
    chunks = [Piece(t) for t in texts]
    everything = reference(chunks, question, len(chunks))
    texts_spaced = [" ".join(chunk.text.lower().split()) for chunk in chunks]
    phrase = " ".join(_WORD.findall(question.lower()))
    whole = [n for n in everything if phrase in texts_spaced[n]]
    rest = [n for n in everything if n not in whole]
    assert keywords.misranked(chunks)(question, k) == (rest + whole)[:k]
