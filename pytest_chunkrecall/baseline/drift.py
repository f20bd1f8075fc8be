"""What changed since the baseline besides the verdicts: each gold file's setup, and its documents.

A regression means little until one knows whether the chunker, the retriever or
the corpus moved under it; this module names what did.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypedDict

if TYPE_CHECKING:  # drift is imported where documents are read, before any of these
    from ..evaluation.results import CaseResult
    from .saved import Baseline

DOCUMENT_CHANGED = "document changed since the baseline"


class DriftJSON(TypedDict):
    """The report's ``baseline.drift`` object."""

    setup: dict[str, list[str]]
    documents_changed: list[str]
    documents_added: list[str]
    documents_removed: list[str]
    documents_read_differently: list[str]


@dataclass(frozen=True)
class LoaderChange:
    """A gold file read through another loader than the baseline's: the documents whose
    text differs are read differently, not changed."""

    before: str | None
    after: str | None
    documents: list[str] = field(default_factory=list)

    def line(self) -> str:
        """``loader changed: a:x → b:y; 14 documents read differently``."""
        line = f"loader changed: {self.before or '(none)'} → {self.after or '(none)'}"
        if self.documents:
            count = len(self.documents)
            line += f"; {count} document{'' if count == 1 else 's'} read differently"
        return line


@dataclass(frozen=True)
class Drift:
    """The setup changes per gold file and the corpus documents changed, added or removed;
    with another loader, the documents it reads differently."""

    setup: dict[str, list[str]] = field(default_factory=dict)
    changed: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    loaders: dict[str, LoaderChange] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.setup or self.changed or self.added or self.removed)

    @property
    def read_differently(self) -> list[str]:
        """The documents whose text differs because another loader read them."""
        return sorted({doc for change in self.loaders.values() for doc in change.documents})

    def to_json(self) -> DriftJSON:
        """The drift as the report carries it."""
        return {
            "setup": {path: list(lines) for path, lines in self.setup.items()},
            "documents_changed": list(self.changed),
            "documents_added": list(self.added),
            "documents_removed": list(self.removed),
            "documents_read_differently": self.read_differently,
        }

    def lines(self) -> list[str]:
        """One line per gold file whose setup changed, one per kind of document change."""
        found = [f"{path}: {'; '.join(changes)}" for path, changes in self.setup.items()]
        for label, docs in (
            ("documents changed", self.changed),
            ("documents added", self.added),
            ("documents removed", self.removed),
        ):
            if docs:
                found.append(f"{label}: {', '.join(docs)}")
        return found


def drift(
    baseline: Baseline,
    setups: Mapping[str, Mapping[str, Any]],
    documents: Mapping[str, Mapping[str, str]],
) -> Drift:
    """How the gold files of this run (``setups``, ``documents``) differ from ``baseline``'s.

    Only gold files both have are compared; documents only where the baseline recorded
    their fingerprints (older baselines did not). A gold file read through another loader
    has its differing documents counted as read differently, not as changed.
    """
    before: dict[str, str] = {}
    after: dict[str, str] = {}
    for path, found in documents.items():
        if baseline.documents.get(path):
            before.update(baseline.documents[path])
            after.update(found)
    changed = {doc for doc in before.keys() & after.keys() if before[doc] != after[doc]}
    loaders: dict[str, LoaderChange] = {}
    for path in sorted(setups.keys() & baseline.setups.keys()):
        old, new = baseline.setups[path].get("loader"), setups[path].get("loader")
        if old != new:
            read = sorted(changed & documents.get(path, {}).keys())
            loaders[path] = LoaderChange(old, new, read)
    read_differently = {doc for change in loaders.values() for doc in change.documents}
    setup = {
        path: changes
        for path in sorted(setups)
        if path in baseline.setups
        and (changes := _changes(baseline.setups[path], setups[path], loaders.get(path)))
    }
    return Drift(
        setup,
        changed=sorted(changed - read_differently),
        added=sorted(after.keys() - before.keys()),
        removed=sorted(before.keys() - after.keys()),
        loaders=loaders,
    )


def _changes(
    before: Mapping[str, Any], after: Mapping[str, Any], loader: LoaderChange | None
) -> list[str]:
    """A gold file's setup changes, the loader's first, said with what it did to the corpus."""
    if loader is None:
        return setup_changes(before, after)
    others = setup_changes(
        {key: value for key, value in before.items() if key != "loader"},
        {key: value for key, value in after.items() if key != "loader"},
    )
    return [loader.line(), *others]


def setup_changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """``chunker_args.size: 300 -> 120``, ``retriever_args: {} -> {"b": 0.5}``, in key order."""
    changes = []
    for key in sorted(before.keys() | after.keys()):
        old, new = before.get(key), after.get(key)
        if old == new:
            continue
        if isinstance(old, dict) and isinstance(new, dict) and old and new:
            # Name the argument that moved rather than repeat both mappings.
            for sub in sorted(old.keys() | new.keys()):
                if old.get(sub) != new.get(sub):
                    changes.append(f"{key}.{sub}: {_shown(old.get(sub))} -> {_shown(new.get(sub))}")
        else:
            changes.append(f"{key}: {_shown(old)} -> {_shown(new)}")
    return changes


def span_documents(result: CaseResult) -> set[str]:
    """The documents where a missed case's span (or its closest text) was found."""
    docs = {held.chunk.doc for held in result.held if held.chunk.doc}
    if result.cut is not None:
        docs.add(result.cut.doc)
    if result.closest is not None and result.closest.doc:
        docs.add(result.closest.doc)
    return docs


def _shown(value: Any) -> str:
    return "(none)" if value is None else json.dumps(value, sort_keys=True)
