"""Deterministic synthetic corpora and gold questions for the benchmarks (no network, no data files).

A corpus is filler prose made of made-up words, with one *fact* sentence per
question planted in it: ``The <attribute> of <entity>, <aside>, is <value>.``
Every entity is a unique word, so a question names its fact unambiguously; the
value is the needle, and the span runs from ``<attribute> of <entity>`` to the
value, so spans have many lengths and some are cut by chunk boundaries.
"""

from __future__ import annotations

import json
import random
import shutil
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path
from typing import Any

import yaml

_ONSETS = ("b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w")
_VOWELS = ("a", "e", "i", "o", "u")
_ATTRIBUTES = (
    "weight",
    "price",
    "launch year",
    "warranty period",
    "battery capacity",
    "colour code",
    "shipping time",
    "return window",
    "rated power",
    "serial prefix",
    "shelf life",
    "depth",
)
TEMPLATE = Path(__file__).parent / "project"
_UNITS = ("grams", "dollars", "days", "hours", "watts", "millimetres", "litres", "cycles")


@dataclass(frozen=True)
class Fact:
    """One planted fact, and the gold case that asks for it."""

    id: str
    question: str
    needle: str
    start: str  # where its span begins
    sentence: str


def _words(rng: random.Random, count: int) -> list[str]:
    words: set[str] = set()
    while len(words) < count:
        syllables = rng.randint(1, 4)
        words.add("".join(rng.choice(_ONSETS) + rng.choice(_VOWELS) for _ in range(syllables)))
    return sorted(words)


def _entity(number: int) -> str:
    # 'q' starts no filler word, so every entity is a word of its own.
    letters = []
    while True:
        number, digit = divmod(number, len(_ONSETS) * len(_VOWELS))
        letters.append(_ONSETS[digit // len(_VOWELS)] + _VOWELS[digit % len(_VOWELS)])
        if number == 0:
            break
    return "Qu" + "".join(letters)


class Prose:
    """Filler sentences with a Zipf-like word distribution, reproducible from a seed."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.vocabulary = _words(self.rng, 3000)
        self.cumulative = list(accumulate(1 / (rank + 1) for rank in range(len(self.vocabulary))))

    def sentence(self, low: int = 6, high: int = 22) -> str:
        words = self.rng.choices(
            self.vocabulary, cum_weights=self.cumulative, k=self.rng.randint(low, high)
        )
        return words[0].capitalize() + " " + " ".join(words[1:]) + "."

    def clause(self) -> str:
        """An aside of 0 to about 40 words, so that spans range from short to several hundred chars."""
        count = min(int(self.rng.expovariate(1 / 8)), 40)
        if count == 0:
            return ""
        return (
            ", "
            + " ".join(self.rng.choices(self.vocabulary, cum_weights=self.cumulative, k=count))
            + ","
        )


def facts(count: int, prose: Prose) -> list[Fact]:
    found = []
    for number in range(count):
        attribute = prose.rng.choice(_ATTRIBUTES)
        entity = _entity(number)
        value = f"{prose.rng.randint(10, 999_999)} {prose.rng.choice(_UNITS)}"
        start = f"{attribute} of {entity}"
        found.append(
            Fact(
                id=f"f{number:05d}",
                question=f"What is the {attribute} of {entity}?",
                needle=value,
                start=start,
                sentence=f"The {start}{prose.clause()} is {value}.",
            )
        )
    return found


def documents(facts_: list[Fact], prose: Prose, *, total_chars: int, count: int) -> list[str]:
    """``count`` documents of about ``total_chars`` together, the facts spread evenly through them."""
    per_doc = total_chars // count
    texts = []
    remaining = list(facts_)
    for number in range(count):
        mine = remaining[: len(remaining) // (count - number)]
        remaining = remaining[len(mine) :]
        parts: list[str] = []
        size = 0
        paragraph: list[str] = []
        each = (per_doc - sum(len(f.sentence) + 1 for f in mine)) // (len(mine) + 1)
        for fact in [*mine, None]:
            goal = size + each
            while size < goal:
                sentence = prose.sentence()
                paragraph.append(sentence)
                size += len(sentence) + 1
                if len(paragraph) >= prose.rng.randint(3, 7):
                    parts.append(" ".join(paragraph))
                    paragraph = []
            if fact is not None:
                paragraph.append(fact.sentence)
                size += len(fact.sentence) + 1
        parts.append(" ".join(paragraph))
        texts.append("\n\n".join(p for p in parts if p) + "\n")
    return texts


@dataclass(frozen=True)
class Project:
    """A generated pytest project: where it is and what it holds."""

    root: Path
    facts: list[Fact]
    corpus_chars: int
    documents: int


def write_project(
    root: Path,
    *,
    cases: int,
    corpus_chars: int,
    documents_count: int,
    seed: int = 20240601,
    chunker: str = "pytest_chunkrecall.chunkers:fixed_size",
    retriever: str | None = None,
    retriever_args: dict[str, Any] | None = None,
    match: str = "exact",
    spans: bool = False,
    gold_files: int = 1,
) -> Project:
    """A project with ``docs/``, gold files under ``gold/`` and the facts as ``cases.json``.

    The gold files all share one configuration (800/200 windows, k 5); the
    hand-written test of the same questions reads ``cases.json``, which names
    the same retriever when it is one of ``keywords.py``.
    """
    prose = Prose(seed)
    planted = facts(cases, prose)
    texts = documents(planted, prose, total_chars=corpus_chars, count=documents_count)
    (root / "docs").mkdir(parents=True, exist_ok=True)
    (root / "gold").mkdir(exist_ok=True)
    for number, text in enumerate(texts):
        (root / "docs" / f"doc{number:04d}.md").write_text(text, encoding="utf-8")
    (root / "pytest.ini").write_text("[pytest]\npythonpath = .\n", encoding="utf-8")
    for template in TEMPLATE.glob("*.py"):
        shutil.copy(template, root / template.name)
    # the hand-written test's plan: its retriever, when the gold files name one of keywords.py
    module, _, function = (retriever or "").partition(":")
    plan = {
        "retriever": function if module == "keywords" else None,
        "cases": [[f.id, f.question, f.needle, None] for f in planted],
    }
    (root / "cases.json").write_text(json.dumps(plan), encoding="utf-8")
    header: dict[str, Any] = {
        "corpus": "../docs/*.md",
        "chunker": chunker,
        "chunker_args": {"size": 800, "overlap": 200},
    }
    if retriever:
        header["retriever"] = retriever
    if retriever_args:
        header["retriever_args"] = retriever_args
    header["k"] = 5
    header["match"] = match
    per_file = -(-len(planted) // gold_files)
    for number in range(gold_files):
        mine = planted[number * per_file : (number + 1) * per_file]
        gold = {**header, "cases": [_case(f, spans) for f in mine]}
        name = "questions.yaml" if gold_files == 1 else f"questions{number:03d}.yaml"
        (root / "gold" / name).write_text(yaml.safe_dump(gold, sort_keys=False), encoding="utf-8")
    return Project(root, planted, sum(len(t) for t in texts), len(texts))


def _case(fact: Fact, spans: bool) -> dict[str, Any]:
    case: dict[str, Any] = {"id": fact.id, "question": fact.question, "needle": fact.needle}
    if spans:
        case["span"] = {"from": fact.start, "to": fact.needle}
    return case


def overhead_project(folder: Path, cases: int, corpus_chars: int) -> Project:
    """The cheap-case project the overhead and repeat rows time: 20 documents, every needle
    found by the keyword index."""
    return write_project(
        folder,
        cases=cases,
        corpus_chars=corpus_chars,
        documents_count=20,
        retriever="keywords:index",
    )
