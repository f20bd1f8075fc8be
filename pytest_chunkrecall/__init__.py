"""Gold questions as pytest tests of a RAG project's own chunker and retriever.

PYTEST_DONT_REWRITE: the plugin raises its own failures and has no ``assert`` for pytest to
rewrite. An editable install loads it through its own import finder, which pytest's
rewriting cannot hook, and pytest would otherwise warn so in every in-process run.
"""

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
