"""shopkb: retrieval over the Lantern & Loom customer-help articles.

The two halves of the retrieval pipeline live in their own modules:
:mod:`shopkb.ingest` cuts the articles into passages, :mod:`shopkb.search`
ranks passages for a question. ``python -m shopkb "question"`` runs both.
"""

from __future__ import annotations

from .ingest import Passage, chunk, load_passages
from .search import Index, build

__all__ = ["Index", "Passage", "build", "chunk", "load_passages"]
__version__ = "0.1.0"
