"""The benchmarks' batched dense retriever answers a batch as it answers each question alone."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

pytest.importorskip("wordllama", reason="needs wordllama (pip install -e '.[integration]')")
sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks" / "project"))

import embeddings


@dataclass(frozen=True)
class Piece:
    text: str


PIECES = [
    Piece("Shipping is free over $75."),
    Piece("Gift cards never expire."),
    Piece("Wash linen sheets in cold water."),
    Piece("The showroom opens at ten."),
]
QUESTIONS = ["Is delivery free?", "Do vouchers run out?", "How do I clean bedding?"]


def test_a_batch_ranks_as_single_questions_do() -> None:
    batched, single = embeddings.batched(PIECES), embeddings.per_question(PIECES)
    assert batched.search_batch(QUESTIONS, 2) == [single.search(q, 2) for q in QUESTIONS]
    assert batched.search_batch([], 2) == []
    assert not hasattr(single, "search_batch")


def test_rankings_are_by_meaning() -> None:
    assert embeddings.per_question(PIECES).search("How do I clean bedding?", 1) == [2]
