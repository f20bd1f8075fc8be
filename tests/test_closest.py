"""The closest text an absent needle's message offers: the one a person would pick."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_chunkrecall.chunking.chunk import Chunk
from pytest_chunkrecall.corpus import Document
from pytest_chunkrecall.evaluation.chunk_map import ChunkMap
from pytest_chunkrecall.evaluation.closest import closest
from pytest_chunkrecall.evaluation.finder import Finder
from pytest_chunkrecall.text.matcher import Matcher

from .conftest import Shop

HANDBOOK = (
    "Expense claims are reimbursed within 20 business days of approval. "  # chunk 0
    "Badges are disabled within 2 business days of leaving the company. "  # chunk 1
    "Parental leave lasts 12 weeks at full pay for every new parent here. "  # chunk 2
    "Sabbaticals of up to 20 weeks are granted after seven years of work. "  # chunk 3
)


def shown(result, prefix: str) -> list[str]:
    line = next(line for line in result.outlines if line.startswith(prefix))
    return re.findall(r"'([^']*)' in docs/", line)


def handbook(shop: Shop, needle: str, ranking: list[int]) -> None:
    for name in ("docs/policies.md", "docs/care.md"):
        (shop.path / name).unlink(missing_ok=True)
    shop.write("docs/handbook.md", HANDBOOK)
    shop.gold(
        f"""
        corpus: ../docs/handbook.md
        chunker: rag:sentences
        retriever: rag:keywords
        retriever_args: {{rankings: {{q: {ranking}}}}}
        k: 1
        cases:
          - id: c
            question: q
            needle: {needle}
        """
    )


def test_a_number_of_the_needles_length_wins_over_a_shorter_one_more_alike(shop):
    # "2 business days" is more alike character by character; "20 business days"
    # keeps the shape of "25 business days": the same words, a two-digit number.
    handbook(shop, "25 business days", [2])
    result = shop.run()
    result.assert_outcomes(failed=1)
    assert shown(result, "  closest text: ")[0] == "20 business days"
    also = shown(result, "  also close: ")
    assert "2 business days" in also and len(also) == 2, result.stdout.str()


def test_a_retrieved_chunk_wins_a_tie_of_shape(shop):
    # "12 weeks" and "20 weeks" both keep the shape of "16 weeks"; the retriever brought back the second.
    handbook(shop, "16 weeks", [3])
    result = shop.run()
    result.assert_outcomes(failed=1)
    assert shown(result, "  closest text: ")[0] == "20 weeks"
    handbook(shop, "16 weeks", [2])
    assert shown(shop.run(), "  closest text: ")[0] == "12 weeks"


NUMBERS = st.integers(1, 99_999).map(str)


@settings(max_examples=100)
@given(
    wanted=NUMBERS,
    others=st.lists(NUMBERS, min_size=1, max_size=6),
    unit=st.sampled_from(["days", "business days", "weeks", "percent"]),
)
def test_a_passage_that_keeps_the_needles_shape_is_offered_first(wanted, others, unit):
    """Oracle: when some passage is the needle with another number of the same length, the
    closest text is such a passage."""
    same_length = [n for n in others if len(n) == len(wanted) and n != wanted]
    texts = [f"The limit is {n} {unit} for everyone." for n in others if n != wanted]
    if not texts:
        return
    documents = [Document(f"d{i}.md", text) for i, text in enumerate(texts)]
    chunks = [Chunk(doc.text, doc.id, i, 0, len(doc.text)) for i, doc in enumerate(documents)]
    finder = Finder(documents, ChunkMap(chunks), chunks, Matcher("normalized"))
    found = closest(finder, f"{wanted} {unit}")
    assert found
    best = found[0]
    if same_length:
        assert best.text in {f"{n} {unit}" for n in same_length}
    assert len({candidate.text for candidate in found}) == len(found) <= 3
