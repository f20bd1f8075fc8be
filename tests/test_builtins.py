"""The built-in fixed_size chunker and bm25 retriever, exactly as the contract defines them."""

from __future__ import annotations

import math
import re
from collections import Counter

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from pytest_chunkrecall import Chunk
from pytest_chunkrecall.chunkers import fixed_size
from pytest_chunkrecall.retrievers import bm25


def windows(text: str, size: int, overlap: int) -> list[str]:
    """Windows of ``size`` from 0, each ``size - overlap`` after the last, until one reaches the end."""
    out, start = [], 0
    while start < len(text):
        out.append(text[start : start + size])
        if start + size >= len(text):
            break
        start += size - overlap
    return out


def test_no_last_window_lies_wholly_inside_the_one_before():
    text = "x" * 800
    assert fixed_size(text, 800, 200) == [text]
    assert [len(w) for w in fixed_size("y" * 1000, 800, 200)] == [800, 400]


@st.composite
def size_and_overlap(draw):
    size = draw(st.integers(1, 40))
    return size, draw(st.integers(0, size - 1))


@given(st.text(max_size=200), size_and_overlap())
def test_fixed_size_is_windows_with_stride_size_minus_overlap(text, args):
    size, overlap = args
    assert fixed_size(text, size, overlap) == windows(text, size, overlap)


@given(st.text(min_size=1, max_size=200), size_and_overlap())
def test_fixed_size_windows_rebuild_the_text(text, args):
    size, overlap = args
    chunks = fixed_size(text, size=size, overlap=overlap)
    assert chunks[0] == text[:size]
    assert chunks[0] + "".join(c[overlap:] for c in chunks[1:]) == text
    assert len(chunks) == 1 + math.ceil(max(0, len(text) - size) / (size - overlap))


def test_fixed_size_on_the_article_corpus():
    text = "x" * 502
    assert len(fixed_size(text, 80, 0)) == 7
    assert len(fixed_size(text, 80, 24)) == 9
    assert [len(c) for c in fixed_size(text, 80, 24)][-2:] == [80, 54]
    assert fixed_size("", 80, 0) == []


@pytest.mark.parametrize(
    "size, overlap",
    [(0, 0), (-5, 0), (80, 80), (80, 100), (80, -1), (True, 0), (80.0, 0), (80, 1.5)],
)
def test_fixed_size_refuses_impossible_windows(size, overlap):
    with pytest.raises(ValueError, match=r"size|overlap"):
        fixed_size("some text", size, overlap)


def test_fixed_size_defaults_to_800_and_200():
    text = "y" * 2000
    assert [len(c) for c in fixed_size(text)] == [800, 800, 800]


# BM25 -------------------------------------------------------------------------------


def tokens(text: str) -> list[str]:
    return [w.lower() for w in re.findall(r"\w+", text)]


def okapi_scores(texts: list[str], question: str, k1: float = 1.5, b: float = 0.75):
    """Okapi BM25 with the non-negative IDF ln(1 + (N - n + 0.5) / (n + 0.5))."""
    docs = [Counter(tokens(t)) for t in texts]
    lengths = [sum(d.values()) for d in docs]
    n_docs = len(docs)
    avgdl = sum(lengths) / n_docs
    scores = {}
    for i, doc in enumerate(docs):
        score, shared = 0.0, False
        for term in dict.fromkeys(tokens(question)):
            if term not in doc:
                continue
            shared = True
            df = sum(term in d for d in docs)
            idf = math.log(1 + (n_docs - df + 0.5) / (df + 0.5))
            tf = doc[term]
            norm = k1 * (1 - b + b * lengths[i] / avgdl) if avgdl else k1
            score += idf * tf * (k1 + 1) / (tf + norm)
        if shared:
            scores[i] = score
    return scores


def ranking(scores: dict[int, float], k: int) -> list[int]:
    return sorted(scores, key=lambda i: (-scores[i], i))[:k]


def chunks_of(texts: list[str]) -> list[Chunk]:
    return [Chunk(t, "d", i, None, None) for i, t in enumerate(texts)]


WORD = st.sampled_from(["refund", "Refund", "window", "days", "30", "fee", "ship", "the", "a"])
TEXT = st.lists(st.one_of(WORD, st.sampled_from([" ", ", ", ". ", "-"])), max_size=20).map("".join)


@given(st.lists(TEXT, min_size=1, max_size=8), TEXT, st.integers(1, 10))
def test_bm25_ranks_as_okapi_bm25_over_lowercase_word_tokens(texts, question, k):
    search = bm25(chunks_of(texts))
    expected = okapi_scores(texts, question)
    got = search(question, k)
    assert got == ranking(expected, k)
    assert all(isinstance(i, int) for i in got)


def test_bm25_returns_only_chunks_that_share_a_word():
    texts = ["The refund window is 30 days.", "Express shipping", "REFUND-policy"]
    search = bm25(chunks_of(texts))
    assert search("refund?", 5) == [2, 0]  # the shorter chunk first; case ignored
    assert search("warranty", 5) == []
    assert search("refund window", 1) == [0]


def test_bm25_accepts_its_parameters_as_retriever_args():
    texts = ["refund refund refund window filler filler filler", "refund window"]
    orders = {}
    for k1, b in [(1.2, 0.0), (1.2, 1.0), (1.5, 0.75)]:
        got = bm25(chunks_of(texts), k1=k1, b=b)("refund", 2)
        assert got == ranking(okapi_scores(texts, "refund", k1, b), 2)
        orders[b] = got
    assert orders[0.0] != orders[1.0]  # length normalisation is b's doing


@given(st.lists(TEXT, min_size=3, max_size=8), WORD, st.integers(1, 8))
def test_bm25_orders_single_word_questions_as_rank_bm25(texts, word, k):
    """rank_bm25's BM25Okapi uses ln((N - n + 0.5) / (n + 0.5)) with a floor; for a word in
    fewer than half the chunks both IDFs are positive and the ordering is the same."""
    rank_bm25 = pytest.importorskip("rank_bm25")
    corpus = [tokens(t) for t in texts]
    term = word.lower()
    df = sum(term in doc for doc in corpus)
    assume(0 < df < len(corpus) / 2)
    assume(any(corpus))
    scores = rank_bm25.BM25Okapi(corpus).get_scores([term])
    expected = sorted((i for i, s in enumerate(scores) if s > 0), key=lambda i: (-scores[i], i))[:k]
    assert bm25(chunks_of(texts))(word, k) == expected


def test_builtins_are_the_defaults(shop):
    shop.gold(
        """
        corpus: ../docs/policies.md
        cases:
          - id: fee
            question: restocking fee
            needle: 15 percent
        """
    )
    _, report = shop.report()
    info = report["gold_files"][0]
    assert (info["chunker"], info["retriever"], info["k"], info["match"]) == (
        "pytest_chunkrecall.chunkers:fixed_size",
        "pytest_chunkrecall.retrievers:bm25",
        5,
        "normalized",
    )
    assert info["chunks"] == 1  # 502 characters fit one 800-character window
