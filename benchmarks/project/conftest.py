"""Reports how often the counting chunker and retriever factory ran in this process."""

from __future__ import annotations

import json
import os

import pytest


def pytest_sessionfinish(session: pytest.Session) -> None:
    target = os.environ.get("CHUNKRECALL_BENCH_CALLS")
    if target:
        import keywords

        with open(f"{target}.{os.getpid()}", "w", encoding="utf-8") as handle:
            json.dump(keywords.CALLS, handle)
