"""Ranking passages in a Chroma vector database server, by wordllama embeddings.

The dense retriever of :mod:`shopkb.dense`, with the vectors kept where a
production assistant would keep them: in a Chroma server, reached over HTTP
with ``chromadb.HttpClient``. shopkb computes the embeddings itself (the same
wordllama vectors, unit length) and hands them to Chroma, so the server never
needs an embedding model of its own and nothing is downloaded. It needs the
``chroma`` extra (``pip install -e '.[chroma]'``) and a running server::

    chroma run --path ./vectors --host 127.0.0.1 --port 8000

Each set of passages gets its own collection, named after its content
(``shopkb-<digest>``): building the index again over the same passages, from
another process or another day, writes the same vectors under the same ids,
and passages that changed never mix with old ones.

:meth:`ChromaIndex.search_batch` sends many questions in one query, and the
index may be searched from several threads at once.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Generic
from urllib.parse import urlsplit

from . import dense
from .search import P

if TYPE_CHECKING:
    from chromadb.api import ClientAPI
    from chromadb.api.models.Collection import Collection

INSTALL_HINT = "pip install -e '.[chroma]' in shopkb's project folder, or pip install chromadb"
URL = "http://127.0.0.1:8000"
# wordllama is not documented as safe to call from several threads; embedding a
# question takes microseconds, the round trip to the server is what is worth
# overlapping.
_EMBEDDING = threading.Lock()


def client(url: str = URL) -> ClientAPI:
    """An HTTP client of the Chroma server at ``url``, with Chroma's usage telemetry off."""
    try:
        import chromadb
        from chromadb.config import Settings
    except ImportError as exc:
        raise ImportError(
            f"shopkb.chroma talks to a Chroma server with chromadb, which is not installed; "
            f"{INSTALL_HINT}"
        ) from exc
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"url must look like {URL}, not {url!r}")
    port = parts.port or (443 if parts.scheme == "https" else 8000)
    try:
        return chromadb.HttpClient(
            host=parts.hostname,
            port=port,
            ssl=parts.scheme == "https",
            settings=Settings(anonymized_telemetry=False),
        )
    except ValueError as exc:  # chromadb's way of saying that nothing answered
        raise ConnectionError(
            f"no Chroma server answers at {url} ({exc}); start one with "
            f"chroma run --path ./vectors --host {parts.hostname} --port {port}"
        ) from exc


def collection_name(texts: Sequence[str], prefix: str = "shopkb") -> str:
    """``<prefix>-<digest>``: the same passages, in the same order, always name one collection."""
    digest = hashlib.sha256()
    for text in texts:
        encoded = text.encode("utf-8")
        # The length first, so that ["ab", "c"] and ["a", "bc"] differ.
        digest.update(len(encoded).to_bytes(8, "big") + encoded)
    return f"{prefix}-{digest.hexdigest()[:16]}"


class ChromaIndex(Generic[P]):
    """Passages stored in a Chroma collection; questions ranked there by cosine similarity."""

    def __init__(
        self, passages: Sequence[P], *, url: str = URL, collection: str = "shopkb"
    ) -> None:
        self.passages = list(passages)
        texts = [p.text for p in self.passages]
        server = client(url)
        with _EMBEDDING:
            vectors = dense.embed(texts)
        self.collection: Collection = server.get_or_create_collection(
            collection_name(texts, collection),
            embedding_function=None,
            configuration={"hnsw": {"space": "cosine"}},
        )
        batch = server.get_max_batch_size()
        for start in range(0, len(texts), batch):
            end = min(start + batch, len(texts))
            self.collection.upsert(
                ids=[str(number) for number in range(start, end)],
                embeddings=vectors[start:end],
                documents=texts[start:end],
            )

    def scored_batch(self, questions: Sequence[str], k: int = 3) -> list[list[tuple[P, float]]]:
        """For each question, the ``k`` closest passages with their cosines, best first.

        One query to the server, whatever the number of questions.
        """
        if not questions:
            return []
        if not self.passages or k < 1:
            return [[] for _ in questions]
        with _EMBEDDING:
            vectors = dense.embed(questions)
        found = self.collection.query(
            query_embeddings=vectors,
            n_results=min(k, len(self.passages)),
            include=["distances"],
        )
        distances = found["distances"] or []
        ranked = []
        for ids, far in zip(found["ids"], distances, strict=True):
            # Chroma orders by distance only; equal distances go to the earlier
            # passage, as in shopkb's other retrievers.
            pairs = sorted(zip(far, map(int, ids), strict=True))
            ranked.append([(self.passages[number], 1.0 - distance) for distance, number in pairs])
        return ranked

    def scored(self, question: str, k: int = 3) -> list[tuple[P, float]]:
        """The ``k`` passages closest in meaning to ``question``, with their cosines, best first."""
        return self.scored_batch([question], k)[0]

    def search_batch(self, questions: Sequence[str], k: int = 3) -> list[list[P]]:
        """For each question, the ``k`` closest passages, best first, in one query."""
        return [[p for p, _ in found] for found in self.scored_batch(questions, k)]

    def search(self, question: str, k: int = 3) -> list[P]:
        """The ``k`` passages closest in meaning to ``question``, best first."""
        return self.search_batch([question], k)[0]


def build(passages: Sequence[P], *, url: str = URL, collection: str = "shopkb") -> ChromaIndex[P]:
    """The index over ``passages`` in the Chroma server at ``url``: a retriever factory."""
    return ChromaIndex(passages, url=url, collection=collection)
