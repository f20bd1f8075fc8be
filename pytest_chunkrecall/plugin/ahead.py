"""Which tests this process runs next: the cases whose questions can be asked ahead.

In a plain run that is the session's items after the running one. Under
pytest-xdist each worker runs the items its controller sends it, in the order
sent: the worker's own queue (``WorkerInteractor.torun``) says which, so a
worker asks only for the questions of cases it will run itself, and no
question goes to the retriever from two workers. (With ``--dist worksteal``
the controller may take queued tests back and give them to another worker;
a question asked ahead for one of those is then asked again there.)
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest

_POSITIONS = pytest.StashKey["dict[int, int]"]()
_INTERACTOR = pytest.StashKey["Any"]()


def upcoming(item: pytest.Item, limit: int) -> Iterator[pytest.Item]:
    """The next ``limit`` items this process will run after ``item``, in the order it will."""
    session = item.session
    items = session.items
    if hasattr(item.config, "workerinput"):
        # A worker whose queue cannot be read asks for its own question only.
        interactor = _interactor(item.config)
        queue = getattr(interactor, "torun", None) if interactor is not None else None
        indices: list[Any] = []
        if queue is not None and hasattr(queue, "lock"):
            indices.append(getattr(interactor, "nextitem_index", None))
            with queue.lock() as pending:
                indices += itertools.islice(pending, limit)
        for index in indices[:limit]:
            if isinstance(index, int) and not isinstance(index, bool) and index < len(items):
                yield items[index]
        return
    positions = item.config.stash.get(_POSITIONS, None)
    if positions is None or len(positions) != len(items):
        positions = item.config.stash[_POSITIONS] = {
            id(each): number for number, each in enumerate(items)
        }
    at = positions.get(id(item))
    if at is not None:
        yield from items[at + 1 : at + 1 + limit]


def _interactor(config: pytest.Config) -> Any:
    """pytest-xdist's worker side of this process, or ``None`` if it cannot be found."""
    found = config.stash.get(_INTERACTOR, None)
    if found is None:
        found = next(
            (
                plugin
                for plugin in config.pluginmanager.get_plugins()
                if type(plugin).__name__ == "WorkerInteractor"
            ),
            False,
        )
        config.stash[_INTERACTOR] = found
    return found or None
