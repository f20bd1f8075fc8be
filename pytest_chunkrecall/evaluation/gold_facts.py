"""What a run knows of each gold file: its configuration and geometry, or why it failed."""

from __future__ import annotations

from typing import Any, TypedDict, final

from ..chunking.geometry import Geometry


class _EveryGoldFile(TypedDict):
    corpus: str
    documents: int
    corpus_chars: int
    chunker: str
    chunker_args: dict[str, Any]  # as the user wrote them: any YAML value
    chunks: int
    retriever: str
    retriever_args: dict[str, Any]
    k: int
    match: str
    unit: str
    geometry: Geometry
    fingerprints: dict[str, str]  # sha256 of each corpus document's text, by document id


@final
class GoldFacts(_EveryGoldFile, total=False):
    """What the summary and the JSON report say about a gold file's configuration.

    With a second stage only: its name and arguments, and the first stage's depth. With a
    loader only: the loader, and the reference loader where one is set.
    """

    reranker: str
    reranker_args: dict[str, Any]
    candidates: int
    loader: str
    reference_loader: str


@final
class GoldFailure(TypedDict):
    """A gold file whose corpus, chunker or retriever could not be built: why."""

    error: str


GoldInfo = GoldFacts | GoldFailure
