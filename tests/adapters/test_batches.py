"""Library retrievers answer batches their own way: LangChain's ``batch``, LlamaIndex's ``aretrieve``."""

from __future__ import annotations

import pytest

from pytest_chunkrecall.chunkers import fixed_size
from pytest_chunkrecall.corpus import Document
from pytest_chunkrecall.evaluation.suite import Component, Suite, chunk_corpus

QUESTIONS = [
    "Do gift cards expire?",
    "What about the parcel and the store?",
    "How are returns refunded?",
    "loyalty points vouchers",
    "Do gift cards expire?",  # asked by two cases: sent once
]


def suite(guide: str, factory) -> Suite:
    docs = (Document("guide.md", guide),)
    chunker = Component.of("fixed_size", fixed_size, {"size": 160, "overlap": 0})
    return Suite(docs, chunk_corpus(docs, chunker), chunker, Component.of("retriever", factory))


def asked_ahead(searched: Suite, k: int = 3) -> list[list[str]]:
    """Every question asked ahead in batches of 2, then taken, as the chunks' texts."""
    prefetch = searched.ahead(batch_size=2, concurrency=1)
    assert prefetch is not None, "the retriever offers no batches"
    prefetch.ask((f"case{n}", [(question, k, 0, None)]) for n, question in enumerate(QUESTIONS))
    return [[r.text for r in searched.search(question, k)] for question in QUESTIONS]


def one_by_one(searched: Suite, k: int = 3) -> list[list[str]]:
    return [[r.text for r in searched.search(question, k)] for question in QUESTIONS]


@pytest.mark.parametrize("name", ["bm25_retriever", "vector_store_retriever"])
def test_a_langchain_retriever_answers_a_batch_through_its_batch(guide, monkeypatch, name):
    lc = pytest.importorskip("tests.adapters.test_langchain_retrievers")
    from langchain_core.retrievers import BaseRetriever

    factory = getattr(lc, name)
    batches: list[list[str]] = []
    original = BaseRetriever.batch

    def counted(self, inputs, *args, **kwargs):
        batches.append(list(inputs))
        return original(self, inputs, *args, **kwargs)

    expected = one_by_one(suite(guide, factory))
    monkeypatch.setattr(BaseRetriever, "batch", counted)
    assert asked_ahead(suite(guide, factory)) == expected
    assert batches == [QUESTIONS[0:2], QUESTIONS[2:4]]


def test_a_llamaindex_retriever_answers_a_batch_through_aretrieve_gathered(guide, monkeypatch):
    li = pytest.importorskip("tests.adapters.test_llamaindex")
    from llama_index.core.base.base_retriever import BaseRetriever

    asked: list[str] = []
    original = BaseRetriever.aretrieve

    async def counted(self, question, *args, **kwargs):
        asked.append(str(question))
        return await original(self, question, *args, **kwargs)

    expected = one_by_one(suite(guide, li.vector_retriever))
    monkeypatch.setattr(BaseRetriever, "aretrieve", counted)
    assert asked_ahead(suite(guide, li.vector_retriever)) == expected
    assert asked == QUESTIONS[:4]
