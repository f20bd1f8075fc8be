"""Gold questions as pytest tests of a RAG project's own chunker and retriever."""

from __future__ import annotations

from .chunking.chunk import Chunk
from .config.settings import Settings
from .errors import ChunkrecallError
from .evaluation.plan import evaluate
from .evaluation.results import CaseResult, Totals

__version__ = "0.1.0"

__all__ = [
    "CaseResult",
    "Chunk",
    "ChunkrecallError",
    "Settings",
    "Totals",
    "__version__",
    "evaluate",
]
