"""LangChain retrievers and vector stores built over the plugin's chunks, with real packages."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_chunkrecall.chunkers import fixed_size
from pytest_chunkrecall.corpus import Document as CorpusDocument
from pytest_chunkrecall.evaluation.suite import Component, Suite, chunk_corpus

pytest.importorskip("langchain_core", reason="needs langchain-core (the integration extra)")
community = pytest.importorskip(
    "langchain_community.retrievers",
    reason="needs langchain-community and rank-bm25 (the integration extra)",
)
pytest.importorskip("rank_bm25", reason="LangChain's BM25Retriever needs rank-bm25")
wordllama = pytest.importorskip("wordllama", reason="dense retrieval tests need wordllama")

from langchain_core.documents import Document  # noqa: E402
from langchain_core.embeddings import Embeddings  # noqa: E402
from langchain_core.vectorstores import InMemoryVectorStore  # noqa: E402

SEARCH_MODULE = """
    from pathlib import Path

    import wordllama
    from langchain_community.retrievers import BM25Retriever
    from langchain_core.documents import Document
    from langchain_core.embeddings import Embeddings
    from langchain_core.vectorstores import InMemoryVectorStore


    def documents(chunks):
        return [
            Document(page_content=c.text, metadata={"chunkrecall_index": c.index}) for c in chunks
        ]


    class WordLlamaEmbeddings(Embeddings):
        def __init__(self):
            here = Path(wordllama.__file__).parent
            self.model = wordllama.WordLlama.load(cache_dir=here, disable_download=True)

        def embed_documents(self, texts):
            return self.model.embed(texts, norm=True).tolist()

        def embed_query(self, text):
            return self.embed_documents([text])[0]


    def bm25(chunks):
        return BM25Retriever.from_documents(documents(chunks))


    def store(chunks):
        return InMemoryVectorStore.from_documents(documents(chunks), WordLlamaEmbeddings())


    def store_retriever(chunks):
        return store(chunks).as_retriever()
"""


class WordLlamaEmbeddings(Embeddings):
    def __init__(self) -> None:
        here = Path(wordllama.__file__).parent
        self.model = wordllama.WordLlama.load(cache_dir=here, disable_download=True)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.model.embed(texts, norm=True).tolist()  # type: ignore[no-any-return]

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


def documents(chunks):
    return [Document(page_content=c.text, metadata={"chunkrecall_index": c.index}) for c in chunks]


def suite(guide, factory, texts=None):
    docs = tuple(
        CorpusDocument(name, text) for name, text in (texts or {"guide.md": guide}).items()
    )
    chunker = Component.of("fixed_size", fixed_size, {"size": 160, "overlap": 0})
    chunks = chunk_corpus(docs, chunker)
    return Suite(docs, chunks, chunker, Component.of("retriever", factory))


def bm25_retriever(chunks):
    return community.BM25Retriever.from_documents(documents(chunks))


def vector_store(chunks):
    return InMemoryVectorStore.from_documents(documents(chunks), WordLlamaEmbeddings())


def vector_store_retriever(chunks):
    return vector_store(chunks).as_retriever()


@pytest.mark.parametrize("factory", [bm25_retriever, vector_store_retriever, vector_store])
def test_the_retriever_is_asked_for_k_results_whatever_its_own_k(guide, factory):
    built = []

    def keep(chunks):
        built.append(factory(chunks))
        return built[0]

    searched = suite(guide, keep)
    question = "What about the parcel and the store?"
    assert len(searched.search(question, 7)) == 7
    assert len(searched.search(question, 2)) == 2
    # Copies are asked; the object the factory built keeps its own setting.
    own = getattr(built[0], "k", None) or getattr(built[0], "search_kwargs", {}).get("k")
    assert own in (None, 4)


def test_results_map_back_to_their_own_chunk_by_the_index_in_metadata(guide):
    # Two documents with the same text: by text alone, both results would be
    # the first document's chunk.
    same = "Loyalty points turn into vouchers."
    built = suite(
        guide,
        lambda chunks: community.BM25Retriever.from_documents(documents(chunks)),
        texts={"a.md": same, "b.md": same},
    )
    top = built.search("loyalty vouchers", 2)
    assert sorted((r.chunk.doc, r.chunk.index) for r in top) == [("a.md", 0), ("b.md", 1)]


@pytest.mark.parametrize("factory", ["bm25", "store", "store_retriever"])
def test_split_and_hit_through_a_langchain_retriever(
    project, chunks_of, split_case, hit_case, verdicts, cuts, factory
):
    args = {"size": 200, "overlap": 0}
    offset, across = split_case(chunks_of(fixed_size, args))
    pytester = project(
        {"chunker_args": args, "retriever": f"rag.search:{factory}"},
        [hit_case, across],
        modules={"rag.search": SEARCH_MODULE},
    )
    result = pytester.runpytest(
        "--chunkrecall-report", "report.json", "-W", "ignore::DeprecationWarning"
    )
    result.assert_outcomes(passed=1, failed=1)
    assert verdicts() == {"gift-cards": "hit", "across-a-boundary": "split"}
    assert cuts()["across-a-boundary"] == ("docs/guide.md", offset)
