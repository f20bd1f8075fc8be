"""One gold file's setup: its corpus, the folders that corpus may come from, its loader and
its chunker, resolved the same way for the pytest run and for every command.

The pytest run, the sweep (through :func:`.plan.plan`), ``chunks``, ``import qa``
and ``validate`` all call :func:`resolve_setup`, so that what a command shows or
checks is what the tests read: the loader applied, the corpus roots enforced
with the same error, the gold file's keys over the ini file's over the defaults.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..chunking.shapes import CONFIGURED, check_arguments
from ..config.resolve import resolve
from ..config.settings import DEFAULT_CHUNKER, Settings
from ..corpus import Document, check_roots, find_files
from ..errors import ChunkrecallError
from .suite import Component, SuiteCache


@dataclass(frozen=True)
class Supplied:
    """What code (a conftest hook) supplies instead of a ``module:attr`` setting."""

    chunker: Any = None
    retriever: Any = None
    documents: tuple[Document, ...] | None = None


@dataclass(frozen=True)
class Setup:
    """What a gold file reads and how it cuts it.

    ``settings`` are the gold file's over the ini file's; ``files`` the corpus
    files (inside the corpus roots), or ``documents`` when a hook supplied them.
    """

    name: str
    settings: Settings
    files: tuple[Path, ...]
    documents: tuple[Document, ...] | None
    loader: Component | None
    reference_loader: Component | None
    chunker: Component

    @property
    def corpus_where(self) -> str:
        """Where the corpus was set, for errors about reading it."""
        return self.settings.where("corpus") or self.name

    def read(self, suites: SuiteCache) -> tuple[Document, ...]:
        """The documents, read once per ``suites`` through the loader, if one is set."""
        if self.documents is not None:
            return self.documents
        return suites.documents(self.files, self.loader, where=self.corpus_where)


def resolve_setup(
    own: Settings,
    *,
    name: str,
    rootdir: Path,
    ini: Settings | None = None,
    roots: Sequence[Path] | None = None,
    loader: Component | None = None,
    reference_loader: Component | None = None,
    supplied: Supplied | None = None,
) -> Setup:
    """Resolve the setup of the gold file ``name`` whose own settings are ``own``.

    The gold file wins, then code supplied by hooks, then the ini file's settings
    (``ini``; ``loader`` and ``reference_loader`` when the run imported the ini's
    ones already), then the defaults. ``roots`` are the folders corpus files may
    lie in (``None``: anywhere, as a notebook's :func:`.plan.evaluate` reads).
    Raises :class:`ChunkrecallError` naming the setting at fault.
    """
    supplied = supplied or Supplied()
    ini = ini or Settings()
    settings = own.over(ini)
    chunker = component(
        "chunker", own.chunker, supplied.chunker, ini.chunker, DEFAULT_CHUNKER, settings, own
    )
    check_component(chunker, "chunker", settings, name)
    files: tuple[Path, ...] = ()
    documents = supplied.documents if own.corpus is None else None
    if documents is None:
        if settings.corpus is None:
            raise ChunkrecallError(
                "no corpus: add 'corpus: <glob>' to the gold file, or set the ini option "
                "chunkrecall_corpus",
                where=f"{name}:1",
            )
        where = settings.where("corpus") or name
        files = tuple(find_files(settings.corpus, settings.corpus_base or rootdir, where=where))
        if roots is not None:
            check_roots(files, roots, where=where)
    return Setup(
        name=name,
        settings=settings,
        files=files,
        documents=documents,
        loader=_function("loader", own, loader, settings),
        reference_loader=_function("reference_loader", own, reference_loader, settings),
        chunker=chunker,
    )


def component(
    kind: str,
    from_gold: str | None,
    from_code: Any,
    from_ini: str | None,
    default: str,
    settings: Settings,
    own: Settings,
) -> Component:
    """The chunker or retriever (``kind``) the gold file names, else the object a hook
    supplies, else the ini file's, else ``default``; with the arguments that travel with it."""
    args = dict(getattr(settings, f"{kind}_args") or {})
    if from_gold is None and from_code is not None:
        # Arguments travel with their chunker or retriever (as in Settings.over): the ini
        # file's were written for the ini's one, not for the object a hook supplies.
        args = dict(getattr(own, f"{kind}_args") or {})
        name = getattr(from_code, "__qualname__", None) or type(from_code).__name__
        return Component.of(f"{name} (from pytest_chunkrecall_{kind})", from_code, args)
    reference = from_gold or from_ini or default
    where = settings.where(kind)
    return Component.of(reference, resolve(reference, what=kind, where=where), args)


def check_component(found: Component, role: str, settings: Settings, name: str) -> None:
    """Refuse a chunker or retriever that its arguments do not fit, naming where they were set."""
    problem = check_arguments(found.obj, found.args, role=role)
    if problem:
        raise ChunkrecallError(
            f"{role} {found.name} {problem}"
            if problem == CONFIGURED
            else f"{role} {found.name} with {role}_args {found.args}: {problem}",
            where=settings.where(f"{role}_args") or settings.where(role) or name,
        )


def _function(
    key: str, own: Settings, resolved: Component | None, settings: Settings
) -> Component | None:
    """The loader (or reference loader) a gold file names, else the one the ini file named
    (``resolved`` once for the run), else the one the combined settings name."""
    reference: str | None = getattr(own, key)
    if reference is None and resolved is not None:
        return resolved
    reference = reference or getattr(settings, key)
    if reference is None:
        return None
    what = key.replace("_", " ")
    return Component.of(reference, resolve(reference, what=what, where=settings.where(key)))
