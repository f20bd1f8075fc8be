"""Gold questions as pytest tests of a RAG project's own chunker and retriever."""

from __future__ import annotations

from .chunks import Chunk
from .errors import ChunkrecallError
from .evaluation import evaluate
from .results import CaseResult, Totals
from .settings import Settings

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
