"""Hooks a ``conftest.py`` implements to supply the chunker, retriever or documents in code."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest


@pytest.hookspec(firstresult=True)
def pytest_chunkrecall_chunker(config: pytest.Config, gold_path: Path) -> Any | None:
    """Return the chunker for the gold file at ``gold_path``, or ``None`` to leave it to settings.

    Anything a ``chunkrecall_chunker`` entry point may name is accepted: a function
    ``chunk(text, **chunker_args)``, a splitter class, or a configured splitter object.
    A ``chunker:`` key in the gold file takes precedence over this hook.
    """


@pytest.hookspec(firstresult=True)
def pytest_chunkrecall_retriever(config: pytest.Config, gold_path: Path) -> Any | None:
    """Return the retriever factory for the gold file at ``gold_path``, or ``None``.

    The factory is called once with the list of chunks (and ``**retriever_args``)
    and returns ``search(question, k)`` or an object with a ``retrieve`` method.
    A ``retriever:`` key in the gold file takes precedence over this hook.
    """


@pytest.hookspec(firstresult=True)
def pytest_chunkrecall_documents(
    config: pytest.Config, gold_path: Path
) -> Mapping[str, str] | None:
    """Return the corpus for the gold file at ``gold_path`` as ``{document id: text}``, or ``None``.

    A ``corpus:`` key in the gold file takes precedence over this hook.
    """
