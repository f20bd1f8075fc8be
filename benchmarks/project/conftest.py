"""Reports how often the counting chunker, retriever factory and dense retrievers ran here."""

from __future__ import annotations

import json
import os
import sys

import pytest


def pytest_sessionfinish(session: pytest.Session) -> None:
    target = os.environ.get("CHUNKRECALL_BENCH_CALLS")
    if target:
        import keywords

        calls: dict[str, float] = {**keywords.CALLS}
        if "embeddings" in sys.modules:  # imported by a gold file that names it
            calls.update(sys.modules["embeddings"].CALLS)
        with open(f"{target}.{os.getpid()}", "w", encoding="utf-8") as handle:
            json.dump(calls, handle)
