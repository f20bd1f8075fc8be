"""A corpus where every needle is a common word: random words, 200-character spans around them.

The corpus is words drawn from a vocabulary of 5,000, with Zipf-like
frequencies (the word of rank r is drawn in proportion to 1/r), so a few words
are everywhere and most are rare, as in prose. Every word has five letters
(consonant, vowel, consonant, vowel, consonant), so a word never occurs inside
another: a needle's occurrences in the corpus are exactly the count of its word.

Each case's span is 200 characters of the corpus, starting at a word; its
needle is the word inside the span that the corpus holds closest to
``NEEDLE_COUNT`` times (about 1,800 in 20 MB). Its question is the span's first
ten words. Everything follows from the seed.
"""

from __future__ import annotations

import json
import random
import shutil
from collections import Counter
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path
from typing import Any

import yaml

VOCABULARY = 5000
SPAN_CHARS = 200
NEEDLE_COUNT = 1800  # in a 20 MB corpus; scaled with the corpus size
_CONSONANTS = "bdfgklmnprstvwz"
_VOWELS = "aeiou"
_TEMPLATE = Path(__file__).parent / "project"


@dataclass(frozen=True)
class Corpus:
    """The documents, and how often each word occurs in all of them together."""

    texts: list[str]
    counts: Counter[str]

    @property
    def chars(self) -> int:
        return sum(len(text) for text in self.texts)


@dataclass(frozen=True)
class Case:
    """One gold case: a span of the corpus and a common word inside it."""

    id: str
    question: str
    needle: str
    span: str
    needle_count: int


def vocabulary(rng: random.Random, size: int = VOCABULARY) -> list[str]:
    """``size`` distinct five-letter words, in the random order that gives their ranks."""
    words: set[str] = set()
    while len(words) < size:
        c, v = _CONSONANTS, _VOWELS
        words.add(rng.choice(c) + rng.choice(v) + rng.choice(c) + rng.choice(v) + rng.choice(c))
    ranked = sorted(words)
    rng.shuffle(ranked)
    return ranked


def corpus(rng: random.Random, *, total_chars: int, documents: int) -> Corpus:
    """``documents`` texts of about ``total_chars`` together: lines of 8 to 20 random words."""
    words = vocabulary(rng)
    weights = list(accumulate(1 / rank for rank in range(1, len(words) + 1)))
    counts: Counter[str] = Counter()
    texts = []
    for _ in range(documents):
        lines, size = [], 0
        while size < total_chars // documents:
            line = rng.choices(words, cum_weights=weights, k=rng.randint(8, 20))
            counts.update(line)
            lines.append(" ".join(line))
            size += len(lines[-1]) + 1
        texts.append("\n".join(lines) + "\n")
    return Corpus(texts, counts)


def cases(rng: random.Random, found: Corpus, count: int) -> list[Case]:
    """``count`` cases over distinct spans, each needle the span's word nearest the target count."""
    target = NEEDLE_COUNT * found.chars / 20_000_000
    chosen: list[Case] = []
    starts: set[tuple[int, int]] = set()
    while len(chosen) < count:
        doc = rng.randrange(len(found.texts))
        text = found.texts[doc]
        start = rng.randrange(0, len(text) - SPAN_CHARS - 6, 6)  # words start every 6 characters
        if (doc, start) in starts:
            continue
        starts.add((doc, start))
        span = text[start : start + SPAN_CHARS].replace("\n", " ")
        words = span.split()[:-1]  # the last word may be cut by the span's end
        needle = min(words, key=lambda word: (abs(found.counts[word] - target), word))
        question = " ".join(words[:10]) + "?"
        chosen.append(Case(f"c{len(chosen):05d}", question, needle, span, found.counts[needle]))
    return chosen


def write_project(
    root: Path,
    *,
    corpus_chars: int,
    case_counts: tuple[int, ...],
    documents: int = 200,
    seed: int = 20261201,
    retriever: str = "keywords:ranked",
) -> tuple[Corpus, dict[int, Path]]:
    """A project with ``docs/`` and one gold file per count, the smaller ones a prefix of the largest.

    ``cases.json`` holds the largest file's cases, for the hand-written test of
    the same questions (``project/test_handwritten.py``).

    The chunker is the built-in ``fixed_size`` with 800-character windows and an
    overlap of 200, so that every span is whole in some chunk; the retriever is
    the benchmarks' cheap ``keywords:ranked`` (the chunks holding the question's
    rarest word, those holding all its words first), so that the plugin's own
    work is what the times show, and the cases mostly pass: pytest's own report
    of failures costs time in proportion to failures times tests.
    """
    rng = random.Random(seed)
    found = corpus(rng, total_chars=corpus_chars, documents=documents)
    every = cases(rng, found, max(case_counts))
    (root / "docs").mkdir(parents=True, exist_ok=True)
    (root / "gold").mkdir(exist_ok=True)
    for number, text in enumerate(found.texts):
        (root / "docs" / f"doc{number:04d}.md").write_text(text, encoding="utf-8")
    (root / "pytest.ini").write_text("[pytest]\npythonpath = .\n", encoding="utf-8")
    for template in _TEMPLATE.glob("*.py"):
        shutil.copy(template, root / template.name)
    module, _, function = retriever.partition(":")
    plan = {
        "retriever": function if module == "keywords" else None,
        "cases": [[c.id, c.question, c.needle, c.span] for c in every],
    }
    (root / "cases.json").write_text(json.dumps(plan), encoding="utf-8")
    gold_files = {}
    for count in case_counts:
        gold: dict[str, Any] = {
            "corpus": "../docs/*.md",
            "chunker": "pytest_chunkrecall.chunkers:fixed_size",
            "chunker_args": {"size": 800, "overlap": 200},
            "retriever": retriever,
            "k": 5,
            "cases": [
                {"id": c.id, "question": c.question, "needle": c.needle, "span": c.span}
                for c in every[:count]
            ],
        }
        path = root / "gold" / f"common{count}.yaml"
        path.write_text(yaml.safe_dump(gold, sort_keys=False, width=1000), encoding="utf-8")
        gold_files[count] = path
    return found, gold_files
