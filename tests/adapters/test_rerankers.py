"""Second stages from the libraries, with real classes and wordllama embeddings: LangChain's
ContextualCompressionRetriever given as the retriever, LlamaIndex node postprocessors given as
the reranker."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("langchain_classic", reason="needs langchain-classic (the integration extra)")
pytest.importorskip("langchain_community.retrievers", reason="needs langchain-community")
pytest.importorskip("rank_bm25", reason="LangChain's BM25Retriever needs rank-bm25")
pytest.importorskip("llama_index.core", reason="needs llama-index-core (the integration extra)")
pytest.importorskip("wordllama", reason="the embeddings are wordllama's")

EMBEDDINGS = """
    from pathlib import Path

    import wordllama

    MODEL = wordllama.WordLlama.load(
        cache_dir=Path(wordllama.__file__).parent, disable_download=True
    )
"""

LANGCHAIN = """
    from langchain_classic.retrievers import ContextualCompressionRetriever
    from langchain_classic.retrievers.document_compressors import EmbeddingsFilter
    from langchain_community.retrievers import BM25Retriever
    from langchain_core.documents import Document
    from langchain_core.embeddings import Embeddings

    from stage_embeddings import MODEL


    class WordLlamaEmbeddings(Embeddings):
        def embed_documents(self, texts):
            return MODEL.embed(texts, norm=True).tolist()

        def embed_query(self, text):
            return self.embed_documents([text])[0]


    def compressed(chunks, threshold):
        documents = [
            Document(page_content=c.text, metadata={"chunkrecall_index": c.index}) for c in chunks
        ]
        return ContextualCompressionRetriever(
            base_compressor=EmbeddingsFilter(
                embeddings=WordLlamaEmbeddings(), similarity_threshold=threshold
            ),
            base_retriever=BM25Retriever.from_documents(documents),
        )
"""

LLAMAINDEX = """
    from llama_index.core import VectorStoreIndex
    from llama_index.core.embeddings import BaseEmbedding
    from llama_index.core.postprocessor import (
        KeywordNodePostprocessor,
        LongContextReorder,
        SimilarityPostprocessor,
    )
    from llama_index.core.schema import TextNode

    from stage_embeddings import MODEL


    class WordLlamaEmbedding(BaseEmbedding):
        def _get_query_embedding(self, query):
            return MODEL.embed(query, norm=True)[0].tolist()

        async def _aget_query_embedding(self, query):
            return self._get_query_embedding(query)

        def _get_text_embedding(self, text):
            return self._get_query_embedding(text)


    def retriever(chunks):
        nodes = [
            TextNode(
                text=c.text,
                metadata={"chunkrecall_index": c.index},
                excluded_embed_metadata_keys=["chunkrecall_index"],
            )
            for c in chunks
        ]
        return VectorStoreIndex(nodes, embed_model=WordLlamaEmbedding()).as_retriever()


    def steps(cutoff, exclude):
        return [
            SimilarityPostprocessor(similarity_cutoff=cutoff),
            KeywordNodePostprocessor(exclude_keywords=exclude),
            LongContextReorder(),
        ]
"""

CASES = [
    {"id": "gift-cards", "question": "Do gift cards expire?", "needle": "never expire"},
    {"id": "repairs", "question": "How long does a repair take?", "needle": "ten days"},
    {"id": "points", "question": "How many points per euro?", "needle": "one point per euro"},
]
INI = {"chunker_args": {"size": 200, "overlap": 0}, "k": 1, "candidates": 5}


def report(pytester: pytest.Pytester) -> tuple[pytest.RunResult, dict]:
    result = pytester.runpytest("--chunkrecall-report", "report.json", "-p", "no:randomly")
    return result, json.loads(Path(pytester.path, "report.json").read_text(encoding="utf-8"))


def test_a_compression_retriever_s_filter_is_the_second_stage(project):
    pytester = project(
        {**INI, "retriever": "stages:compressed", "retriever_args": {"threshold": 0.37}},
        CASES,
        modules={"stage_embeddings": EMBEDDINGS, "stages": LANGCHAIN},
    )
    result, data = report(pytester)
    assert result.ret == 1
    cases = {case["id"]: case for case in data["cases"]}
    # BM25 ranks the gift-card chunk fifth; the filter drops the four above it.
    assert (cases["gift-cards"]["verdict"], cases["gift-cards"]["candidate_rank"]) == ("hit", 5)
    assert (cases["repairs"]["verdict"], cases["repairs"]["candidate_rank"]) == ("hit", 1)
    # BM25 found the loyalty chunk first; the embeddings filter dropped it.
    assert (cases["points"]["verdict"], cases["points"]["candidate_rank"]) == ("reranked_out", 1)
    assert cases["points"]["reranker"] == "stages:compressed (its base_compressor)"
    assert data["totals"]["funnel"] == {
        **{"cases": 3, "loaded": 3, "whole": 3},
        **{"candidates": 3, "top_k": 2},
    }
    result.stdout.fnmatch_lines(
        [
            "*reranked_out — a first-stage candidate holds it whole, but the reranker "
            "stages:compressed (its base_compressor) dropped that chunk from the top 1",
            "funnel: 3 cases → 3 kept whole by chunking → 3 in the candidates → 2 in the top 1 "
            "(lost: 1 reranked_out)",
        ]
    )


def test_llamaindex_postprocessors_drop_by_score_and_by_keyword(project):
    pytest.importorskip("spacy", reason="KeywordNodePostprocessor matches keywords with spaCy")
    pytester = project(
        {
            **INI,
            "retriever": "stages:retriever",
            "reranker": "stages:steps",
            "reranker_args": {"cutoff": 0.37, "exclude": ["Leeds"]},
        },
        CASES,
        modules={"stage_embeddings": EMBEDDINGS, "stages": LLAMAINDEX},
    )
    result, data = report(pytester)
    assert result.ret == 1
    cases = {case["id"]: case for case in data["cases"]}
    assert cases["gift-cards"]["verdict"] == "hit"
    # The repairs chunk names the Leeds workshop: the keyword filter drops it.
    assert cases["repairs"]["verdict"] == "reranked_out"
    assert cases["repairs"]["candidate_rank"] == 1
    # The loyalty chunk scores under the cutoff: the similarity filter drops it.
    points = cases["points"]
    assert (points["verdict"], points["candidate_rank"]) == ("reranked_out", 1)
    assert points["candidate_score"] < 0.37 < cases["repairs"]["candidate_score"]
    assert data["totals"]["funnel"]["candidates"] - data["totals"]["funnel"]["top_k"] == 2
    result.stdout.fnmatch_lines(
        [
            f"*the chunk that holds it was candidate 1 of 5, first-stage score "
            f"{points['candidate_score']:.4g}; the reranker's stage dropped it",
        ]
    )
