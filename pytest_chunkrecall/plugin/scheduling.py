"""Under ``pytest -n``: each gold file's cases go to one worker, so each suite is built where it is used.

A worker builds the suite (corpus chunked, retriever index built) of every gold
file it runs a case of. xdist's ``--dist load`` hands out consecutive tests in
chunks that ignore file boundaries, so with a few gold files every worker ends
up building every suite: for an embedding retriever that is most of the run,
done once per worker. This scheduler is ``--dist load`` with one change: the
chunk that takes a case of a gold file takes all of that file's pending cases
along. Every other test is scheduled exactly as ``--dist load`` schedules it.

A gold file larger than a worker's fair share of the run (all tests over the
number of workers) is left to ``--dist load``'s chunks: kept whole, it would
leave the other workers idle while one works through it. The unit is the gold
file, not the suite: the controller sees only node ids, and gold files that
share a configuration can then still run side by side.

Imported only where pytest-xdist is installed and its hooks are known.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

import pytest
from xdist.remote import Producer  # type: ignore[import-untyped]
from xdist.scheduler import LoadScheduling  # type: ignore[import-untyped]
from xdist.workermanage import WorkerController  # type: ignore[import-untyped]

from ..discovery import collected_as_gold
from .options import OPTIONS


class GoldFileScheduling(LoadScheduling):  # type: ignore[misc]  # xdist ships no types
    """xdist's load scheduling that sends each gold file (no larger than a share) to one worker."""

    def __init__(
        self, config: pytest.Config, log: Producer | None, *, is_gold: Callable[[str], bool]
    ) -> None:
        super().__init__(config, log)
        self._is_gold = is_gold
        self._whole: list[str | None] = []  # by collection index: the gold file kept whole

    def schedule(self) -> None:
        if self.collection is None and self.node2collection:
            collection = next(iter(self.node2collection.values()))
            self._whole = whole_files(collection, self._is_gold, workers=len(self.nodes))
        super().schedule()

    def _send_tests(self, node: WorkerController, num: int) -> None:
        whole = self._whole
        files = {whole[i] for i in self.pending[:num] if i < len(whole)} - {None}
        if files:
            # The rest of those files goes along, in the order of the collection.
            rest = self.pending[num:]
            along = [i for i in rest if i < len(whole) and whole[i] in files]
            if along:
                left = [i for i in rest if i >= len(whole) or whole[i] not in files]
                self.pending[num:] = along + left
                num += len(along)
        super()._send_tests(node, num)


def whole_files(
    collection: Sequence[str], is_gold: Callable[[str], bool], *, workers: int
) -> list[str | None]:
    """For each node id, the gold file it belongs to if that file is sent whole, else ``None``.

    A gold file is sent whole when it holds no more than ``len(collection) / workers``
    tests, a worker's fair share of the run.
    """
    files = [nodeid.split("::", 1)[0] if "::" in nodeid else None for nodeid in collection]
    gold = {name: is_gold(name) for name in set(files) if name is not None}
    sizes = Counter(name for name in files if name is not None and gold[name])
    share = len(collection) / max(workers, 1)
    return [name if name is not None and 0 < sizes[name] <= share else None for name in files]


class GoldFileScheduler:
    """The plugin object that offers :class:`GoldFileScheduling` for ``--dist load``."""

    def __init__(self, config: pytest.Config) -> None:
        self._config = config
        self._known: dict[str, bool] = {}
        invoked = config.invocation_params.dir
        self._named = {(invoked / arg.split("::", 1)[0]).resolve() for arg in config.args}

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_make_scheduler(
        self, config: pytest.Config, log: Producer
    ) -> GoldFileScheduling | None:
        if config.getoption("dist") != "load" or not hasattr(LoadScheduling, "_send_tests"):
            # Every other mode is the user's explicit choice; and should a later xdist
            # reshape load scheduling, its own takes over rather than a broken copy.
            return None
        return GoldFileScheduling(config, log, is_gold=self.is_gold)

    def is_gold(self, file_part: str) -> bool:
        """Whether the file of a node id (relative to the rootdir) is collected as a gold file."""
        known = self._known.get(file_part)
        if known is None:
            path = self._config.rootpath / file_part
            chosen = self._config.stash[OPTIONS].gold_files
            known = path.suffix in (".yaml", ".yml") and (
                collected_as_gold(path, self._config.rootpath, chosen)
                or path.resolve() in self._named
            )
            self._known[file_part] = known
        return known
