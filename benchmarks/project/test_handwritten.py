"""The same questions as the gold file, written by hand: the same chunker, retriever and check."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from keywords import index, windows

ROOT = Path(__file__).parent
CASES = json.loads((ROOT / "cases.json").read_text(encoding="utf-8"))


class Piece:
    """A chunk as the retriever sees it."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


@pytest.fixture(scope="session")
def corpus() -> tuple[list[Piece], Any]:
    chunks = [
        Piece(text)
        for path in sorted((ROOT / "docs").glob("*.md"))
        for text in windows(path.read_text(encoding="utf-8"), 800, 200)
    ]
    return chunks, index(chunks)


@pytest.mark.parametrize(
    ("question", "needle"), [case[1:] for case in CASES], ids=[case[0] for case in CASES]
)
def test_recall(corpus: tuple[list[Piece], Any], question: str, needle: str) -> None:
    chunks, search = corpus
    top = [chunks[number].text for number in search(question, 5)]
    assert any(needle in text for text in top)
