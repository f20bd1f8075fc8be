"""The same questions as the gold file, written by hand: the same chunker, retriever and check.

``cases.json`` names the retriever (a function of ``keywords.py``) and lists the
cases as ``[id, question, needle, span]``, the span null where the case has
none; ``CHUNKRECALL_BENCH_FIRST=N`` in the environment keeps the first N of them,
as a gold file of the first N cases would hold. Without a span the check is the needle as an exact substring of one of
the top 5 chunks, as the gold file's ``match: exact`` asks; with one it is the
span whole in one of them, lowered and with its runs of whitespace made one on
both sides, as the plugin's default ``normalized`` matching compares them.

``CHUNKRECALL_BENCH_DEPTH=N`` makes a miss also ask the retriever ``N`` deep and
fail naming the rank of the first chunk that passes the same check there: what
the plugin's ``chunkrecall_depth`` reports, written by hand, for comparing the
plugin's deeper retrieval with the retriever's own cost of it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import keywords
import pytest

ROOT = Path(__file__).parent
PLAN = json.loads((ROOT / "cases.json").read_text(encoding="utf-8"))
CASES = PLAN["cases"][: int(os.environ.get("CHUNKRECALL_BENCH_FIRST", len(PLAN["cases"])))]
DEPTH = int(os.environ.get("CHUNKRECALL_BENCH_DEPTH", "0"))


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
        for text in keywords.windows(path.read_text(encoding="utf-8"), 800, 200)
    ]
    return chunks, getattr(keywords, PLAN["retriever"])(chunks)


def collapsed(text: str) -> str:
    return " ".join(text.lower().split())


@pytest.mark.parametrize(
    ("question", "needle", "span"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_recall(
    corpus: tuple[list[Piece], Any], question: str, needle: str, span: str | None
) -> None:
    chunks, search = corpus
    top = [chunks[number].text for number in search(question, 5)]
    if DEPTH:
        fail_with_the_deeper_rank(corpus, question, needle, span, top)
    if span is None:
        assert any(needle in text for text in top)
    else:
        assert any(collapsed(span) in collapsed(text) for text in top)


def fail_with_the_deeper_rank(
    corpus: tuple[list[Piece], Any], question: str, needle: str, span: str | None, top: list[str]
) -> None:
    """When no top-5 chunk passes the check, fail naming the rank of the first that does
    among the retriever's top ``DEPTH``, or saying that none does."""

    def holds(text: str) -> bool:
        return needle in text if span is None else collapsed(span) in collapsed(text)

    if any(holds(text) for text in top):
        return
    chunks, search = corpus
    deeper = (chunks[number].text for number in search(question, DEPTH))
    rank = next((rank for rank, text in enumerate(deeper, start=1) if holds(text)), None)
    pytest.fail(f"not in the top 5; the chunk that holds it ranks {rank} (of {DEPTH})")
