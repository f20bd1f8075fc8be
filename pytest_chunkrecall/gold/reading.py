"""Reading a gold file: its text, composed case by case, checked into a ``GoldFile``."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import yaml

from ..errors import GoldError
from .fields import Where, read_case, read_doc, read_filter, read_settings
from .safe_yaml import read_text
from .stream import compose_cases
from .values import CASE_KEYS, FILE_KEYS, Case, GoldFile


def load(path: Path, *, name: str | None = None) -> GoldFile:
    """Read and validate the gold file at ``path``; ``name`` is how errors refer to it."""
    name = name or str(path)
    text = read_text(path, name)
    return parse(text, path=path, name=name)


def parse(text: str, *, path: Path, name: str) -> GoldFile:
    """Validate the YAML ``text`` of a gold file, reading its cases one at a time."""
    where = Where(path, name)
    read = _Cases(where)
    root, streamed = compose_cases(text, name, read.add)
    if root is None:
        raise GoldError("the file is empty; it needs a 'cases:' list", where=f"{name}:1")
    top = where.mapping(root, "the gold file", FILE_KEYS, other=CASE_KEYS, other_place="a case")
    if "cases" not in top:
        raise GoldError("no 'cases:' list; add at least one case", where=where.at(root))
    settings = read_settings(top, where)
    file_doc = read_doc(top["doc"][1], where) if "doc" in top else None
    cases_node = top["cases"][1]
    if not isinstance(cases_node, yaml.SequenceNode):
        raise GoldError("'cases' must be a list of cases", where=where.at(cases_node))
    if not any(cases_node is node for node in streamed):  # merged in, or given twice
        read = _Cases(where)
        for node in cases_node.value:
            read.add(node)
    if not read.count:
        raise GoldError("'cases' is empty; add at least one case", where=where.at(cases_node))
    if read.error is not None:
        raise read.error
    cases = read.cases
    if file_doc is not None:
        cases = [replace(case, doc=file_doc) if case.doc is None else case for case in cases]
    file_filter = read_filter(top["filter"][1], where) if "filter" in top else None
    if file_filter is not None:
        cases = [
            replace(case, filter=file_filter) if case.filter is None else case for case in cases
        ]
    return GoldFile(
        path=path, settings=settings, cases=tuple(cases), doc=file_doc, filter=file_filter
    )


class _Cases:
    """A ``cases:`` list read a node at a time as the file is composed. The first case at
    fault is kept, not raised: a YAML syntax error further down is said first."""

    def __init__(self, where: Where) -> None:
        self.where = where
        self.cases: list[Case] = []
        self.count = 0
        self.error: GoldError | None = None
        self._seen: dict[str, int] = {}

    def add(self, node: yaml.Node) -> None:
        self.count += 1
        if self.error is not None:
            return
        try:
            case = read_case(node, self.where)
        except GoldError as exc:
            self.error = exc
            return
        if case.id in self._seen:
            self.error = GoldError(
                f"duplicate case id {case.id!r} (first used on line {self._seen[case.id]}); "
                "give one of them a different 'id:'",
                where=self.where.at(node),
            )
            return
        self._seen[case.id] = case.line
        self.cases.append(case)
