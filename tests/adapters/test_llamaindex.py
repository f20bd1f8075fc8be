"""LlamaIndex node parsers, retrievers and indexes, against the real package."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

import pytest

from pytest_chunkrecall.chunkers import fixed_size
from pytest_chunkrecall.corpus import Document as CorpusDocument
from pytest_chunkrecall.evaluation.suite import Component, Suite, chunk_corpus

pytest.importorskip("llama_index.core", reason="needs llama-index-core (the integration extra)")
wordllama = pytest.importorskip("wordllama", reason="dense retrieval tests need wordllama")

from llama_index.core import VectorStoreIndex  # noqa: E402
from llama_index.core.embeddings import BaseEmbedding  # noqa: E402
from llama_index.core.indices.vector_store import retrievers  # noqa: E402, F401  (imported lazily by as_retriever)
from llama_index.core.node_parser import SentenceSplitter, SentenceWindowNodeParser  # noqa: E402
from llama_index.core.schema import Document, TextNode  # noqa: E402

SEARCH_MODULE = """
    from pathlib import Path

    import wordllama
    from llama_index.core import VectorStoreIndex
    from llama_index.core.embeddings import BaseEmbedding
    from llama_index.core.schema import TextNode

    MODEL = wordllama.WordLlama.load(
        cache_dir=Path(wordllama.__file__).parent, disable_download=True
    )


    class WordLlamaEmbedding(BaseEmbedding):
        def _get_query_embedding(self, query):
            return MODEL.embed(query, norm=True)[0].tolist()

        async def _aget_query_embedding(self, query):
            return self._get_query_embedding(query)

        def _get_text_embedding(self, text):
            return self._get_query_embedding(text)

        def _get_text_embeddings(self, texts):
            return MODEL.embed(texts, norm=True).tolist()


    def index(chunks):
        nodes = [
            TextNode(
                text=c.text,
                metadata={"chunkrecall_index": c.index},
                excluded_embed_metadata_keys=["chunkrecall_index"],
            )
            for c in chunks
        ]
        return VectorStoreIndex(nodes, embed_model=WordLlamaEmbedding())


    def retriever(chunks):
        return index(chunks).as_retriever()
"""

MODEL = wordllama.WordLlama.load(cache_dir=Path(wordllama.__file__).parent, disable_download=True)


class WordLlamaEmbedding(BaseEmbedding):
    def _get_query_embedding(self, query: str) -> list[float]:
        return MODEL.embed(query, norm=True)[0].tolist()  # type: ignore[no-any-return]

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._get_query_embedding(query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._get_query_embedding(text)


def vector_index(chunks):
    nodes = [
        TextNode(
            text=c.text,
            metadata={"chunkrecall_index": c.index},
            excluded_embed_metadata_keys=["chunkrecall_index"],
        )
        for c in chunks
    ]
    return VectorStoreIndex(nodes, embed_model=WordLlamaEmbedding())


def vector_retriever(chunks):
    return vector_index(chunks).as_retriever()


@pytest.mark.parametrize(
    ("parser", "args"),
    [
        (SentenceSplitter, {"chunk_size": 64, "chunk_overlap": 16}),
        (SentenceWindowNodeParser, {}),
    ],
)
def test_start_and_end_char_idx_from_the_library_are_the_plugins_offsets(
    chunks_of, guide, parser, args
):
    nodes = parser(**args).get_nodes_from_documents([Document(text=guide)])
    chunks = chunks_of(parser, args)
    assert [(c.text, c.start, c.end) for c in chunks] == [
        (n.text, n.start_char_idx, n.end_char_idx) for n in nodes
    ]
    assert all(guide[c.start : c.end] == c.text for c in chunks)


def test_split_and_hit_through_a_node_parser_class(
    project, chunks_of, split_case, hit_case, verdicts, cuts
):
    args = {"chunk_size": 64, "chunk_overlap": 0}
    offset, across = split_case(chunks_of(SentenceSplitter, args))
    pytester = project(
        {"chunker": "llama_index.core.node_parser:SentenceSplitter", "chunker_args": args},
        [hit_case, across],
    )
    result = pytester.runpytest("--chunkrecall-report", "report.json")
    result.assert_outcomes(passed=1, failed=1)
    assert verdicts() == {"gift-cards": "hit", "across-a-boundary": "split"}
    assert cuts()["across-a-boundary"] == ("docs/guide.md", offset)


@pytest.mark.parametrize("factory", [vector_index, vector_retriever])
def test_the_retriever_is_asked_for_k_results(guide, factory):
    docs = (CorpusDocument("guide.md", guide),)
    chunker = Component.of("fixed_size", fixed_size, {"size": 160, "overlap": 0})
    chunks = chunk_corpus(docs, chunker)
    searched = Suite(docs, chunks, chunker, Component.of("retriever", factory))
    top = searched.search("Do gift cards expire?", 7)  # as_retriever() defaults to 2
    assert len(top) == 7
    assert all(r.chunk is not None and r.chunk.text == r.text for r in top)
    assert "never expire" in top[0].text


@pytest.mark.parametrize("factory", ["index", "retriever"])
def test_split_and_hit_through_a_llamaindex_retriever(
    project, chunks_of, split_case, hit_case, verdicts, cuts, factory
):
    args = {"size": 200, "overlap": 0}
    offset, across = split_case(chunks_of(fixed_size, args))
    pytester = project(
        {"chunker_args": args, "retriever": f"rag.search:{factory}"},
        [hit_case, across],
        modules={"rag.search": SEARCH_MODULE},
    )
    result = pytester.runpytest("--chunkrecall-report", "report.json")
    result.assert_outcomes(passed=1, failed=1)
    assert verdicts() == {"gift-cards": "hit", "across-a-boundary": "split"}
    assert cuts()["across-a-boundary"] == ("docs/guide.md", offset)


def test_a_parser_whose_api_changed_is_named_with_its_version(project, hit_case):
    pytester = project(
        {"chunker": "rag.chunking:RenamedParser"},
        [hit_case],
        modules={
            "rag.chunking": """
                from typing import ClassVar

                from llama_index.core.node_parser import SentenceSplitter

                class RenamedParser(SentenceSplitter):
                    get_nodes_from_documents: ClassVar[None] = None  # as if renamed
            """
        },
    )
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    version = metadata.version("llama-index-core")
    result.stdout.fnmatch_lines(
        [
            "*chunker rag.chunking:RenamedParser is a LlamaIndex node parser, but it has no "
            f"get_nodes_from_documents() method: llama-index-core {version} is installed*"
        ]
    )
