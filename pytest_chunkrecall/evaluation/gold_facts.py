"""What a run knows of each gold file: its configuration and geometry, or why it failed."""

from __future__ import annotations

from typing import Any, TypedDict, final

from ..chunking.geometry import Geometry


@final
class GoldFacts(TypedDict):
    """What the summary and the JSON report say about a gold file's configuration."""

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
class GoldFailure(TypedDict):
    """A gold file whose corpus, chunker or retriever could not be built: why."""

    error: str


GoldInfo = GoldFacts | GoldFailure
