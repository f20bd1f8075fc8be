"""Gold files: YAML read into validated values that remember their source lines."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

import yaml

from .config.settings import SETTING_KEYS, Settings, check_setting, did_you_mean
from .errors import GoldError, shown
from .gold_stream import compose_cases
from .gold_yaml import construct, merged_pairs, read_text

FILE_KEYS = (*SETTING_KEYS, "doc", "cases")
CASE_KEYS = (
    "id", "question", "needle", "needles", "span", "doc",
    "k", "match", "fuzzy_threshold", "xfail", "skip", "marks",
)  # fmt: skip

_MARK_NAME = re.compile(r"^[A-Za-z_]\w*$")
T = TypeVar("T")


@dataclass(frozen=True)
class SpanRange:
    """``span: {from: ..., to: ...}``: the shortest passage starting with ``start`` and ending with ``end``."""

    start: str
    end: str

    def __str__(self) -> str:
        return f"{self.start} … {self.end}"


Span = str | SpanRange


@dataclass(frozen=True)
class Case:
    """One gold question: what to ask, what must come back, what must survive chunking."""

    id: str
    question: str
    needles: tuple[str, ...]
    span: Span | None = None
    line: int = 1
    k: int | None = None
    match: str | None = None
    fuzzy_threshold: float | None = None
    xfail: str | None = None
    skip: str | None = None
    marks: tuple[str, ...] = ()
    doc: str | None = None  # a path or glob relative to the gold file, or a document id


@dataclass(frozen=True)
class GoldFile:
    """A parsed gold file; ``doc`` pins every case that has no ``doc`` of its own."""

    path: Path
    settings: Settings
    cases: tuple[Case, ...]
    doc: str | None = None


def load(path: Path, *, name: str | None = None) -> GoldFile:
    """Read and validate the gold file at ``path``; ``name`` is how errors refer to it."""
    name = name or str(path)
    text = read_text(path, name)
    return parse(text, path=path, name=name)


def parse(text: str, *, path: Path, name: str) -> GoldFile:
    """Validate the YAML ``text`` of a gold file, reading its cases one at a time."""
    where = _Where(path, name)
    read = _Cases(where)
    root, streamed = compose_cases(text, name, read.add)
    if root is None:
        raise GoldError("the file is empty; it needs a 'cases:' list", where=f"{name}:1")
    top = where.mapping(root, "the gold file", FILE_KEYS, other=CASE_KEYS, other_place="a case")
    if "cases" not in top:
        raise GoldError("no 'cases:' list; add at least one case", where=where.at(root))
    settings = _settings(top, where)
    file_doc = _doc(top["doc"][1], where) if "doc" in top else None
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
    return GoldFile(path=path, settings=settings, cases=tuple(cases), doc=file_doc)


class _Cases:
    """A ``cases:`` list read a node at a time as the file is composed. The first case at
    fault is kept, not raised: a YAML syntax error further down is said first."""

    def __init__(self, where: _Where) -> None:
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
            case = _case(node, self.where)
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


def slug(question: str) -> str:
    """The default case id: the question in lowercase words joined by dashes."""
    words = re.findall(r"\w+", question.lower())
    text = "-".join(words)
    if len(text) > 60:
        text = text[:60].rsplit("-", 1)[0]
    return text or "case"


class _Where:
    """Turns YAML nodes into ``file:line`` and reads mappings with key checks."""

    def __init__(self, path: Path, name: str) -> None:
        self.path = path
        self.name = name

    def at(self, node: yaml.Node) -> str:
        return f"{self.name}:{node.start_mark.line + 1}"

    def mapping(
        self,
        node: yaml.Node,
        what: str,
        keys: tuple[str, ...],
        *,
        other: tuple[str, ...] = (),
        other_place: str = "",
    ) -> dict[str, tuple[yaml.Node, yaml.Node]]:
        if not isinstance(node, yaml.MappingNode):
            raise GoldError(
                f"{what} must be a mapping of keys to values, not {_kind(node)}",
                where=self.at(node),
            )
        result: dict[str, tuple[yaml.Node, yaml.Node]] = {}
        written: set[str] = set()
        for key_node, value_node, own in merged_pairs(node, self.name):
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
            if not isinstance(key, str) or key not in keys:
                named = shown(key) if key is not None else _kind(key_node)
                hint = (
                    f"; '{key}' belongs in {other_place}"
                    if key in other
                    else did_you_mean(str(key), keys)
                )
                raise GoldError(
                    f"unknown key {named} in {what}{hint} (allowed: {', '.join(keys)})",
                    where=self.at(key_node),
                )
            if key in written and own:
                raise GoldError(f"key '{key}' is given twice in {what}", where=self.at(key_node))
            if own:
                written.add(key)
            result[key] = (key_node, value_node)
        return result


def _value(node: yaml.Node, key: str, where: _Where) -> Any:
    return construct(node, key, where.at(node))


def _settings(top: dict[str, tuple[yaml.Node, yaml.Node]], where: _Where) -> Settings:
    values: dict[str, Any] = {}
    origins: dict[str, str] = {}
    for key in SETTING_KEYS:
        if key in top:
            key_node, value_node = top[key]
            values[key] = _checked(key, value_node, where)
            origins[key] = where.at(key_node)
    return Settings(**values, corpus_base=where.path.parent, origins=origins)


def _checked(key: str, node: yaml.Node, where: _Where) -> Any:
    value, problem = check_setting(key, _value(node, key, where))
    if problem:
        raise GoldError(f"'{key}' {problem}", where=where.at(node))
    return value


def _case(node: yaml.Node, where: _Where) -> Case:
    fields = where.mapping(
        node, "a case", CASE_KEYS, other=FILE_KEYS, other_place="the top of the file"
    )
    line = node.start_mark.line + 1

    def get(key: str, read: Callable[[yaml.Node], T]) -> T | None:
        return read(fields[key][1]) if key in fields else None

    question = get("question", lambda n: _text(n, "question", where))
    if question is None:
        raise GoldError("this case has no 'question:'", where=f"{where.name}:{line}")
    if "needle" in fields and "needles" in fields:
        raise GoldError(
            "give either 'needle:' or 'needles:', not both", where=where.at(fields["needles"][0])
        )
    needles: tuple[str, ...] | None
    if "needles" in fields:
        needles = get("needles", lambda n: _texts(n, "needles", where))
    else:
        one = get("needle", lambda n: _text(n, "needle", where))
        needles = (one,) if one is not None else None
    if not needles:
        raise GoldError(
            "this case has no 'needle:' (the text that must come back); add one, or "
            "'needles: [...]' for several",
            where=f"{where.name}:{line}",
        )
    case_id = get("id", lambda n: _case_id(n, where)) or slug(question)
    return Case(
        id=case_id,
        question=question,
        needles=needles,
        span=get("span", lambda n: _span(n, where)),
        line=line,
        k=get("k", lambda n: _checked("k", n, where)),
        match=get("match", lambda n: _checked("match", n, where)),
        fuzzy_threshold=get("fuzzy_threshold", lambda n: _checked("fuzzy_threshold", n, where)),
        xfail=get("xfail", lambda n: _reason(n, "xfail", where)),
        skip=get("skip", lambda n: _reason(n, "skip", where)),
        marks=get("marks", lambda n: _marks(n, where)) or (),
        doc=get("doc", lambda n: _doc(n, where)),
    )


def _text(node: yaml.Node, key: str, where: _Where, *, label: str = "") -> str:
    # Scalars keep the text as written: `needle: 1.50` is "1.50", not 1.5.
    label = label or f"'{key}'"
    if not isinstance(node, yaml.ScalarNode) or node.tag == "tag:yaml.org,2002:null":
        raise GoldError(f"{label} must be text, not {_kind(node)}", where=where.at(node))
    text = str(node.value).strip()
    if not text:
        raise GoldError(f"{label} is empty; give its text or remove it", where=where.at(node))
    return text


def _texts(node: yaml.Node, key: str, where: _Where) -> tuple[str, ...]:
    if not isinstance(node, yaml.SequenceNode) or not node.value:
        raise GoldError(f"'{key}' must be a non-empty list of text", where=where.at(node))
    return tuple(
        _text(item, key, where, label=f"item {number} of '{key}'")
        for number, item in enumerate(node.value, start=1)
    )


def _doc(node: yaml.Node, where: _Where) -> str:
    if isinstance(node, yaml.SequenceNode):
        raise GoldError(
            "'doc' must be one path or glob (text), not a list; name one document, or a glob "
            "that matches the ones that count, e.g. doc: ../docs/billing-*.md",
            where=where.at(node),
        )
    return _text(node, "doc", where)


def _case_id(node: yaml.Node, where: _Where) -> str:
    text = _text(node, "id", where)
    if "::" in text or "\n" in text:
        raise GoldError(
            f"'id' may not contain '::' or line breaks: {shown(text)}", where=where.at(node)
        )
    return text


def _span(node: yaml.Node, where: _Where) -> Span:
    if isinstance(node, yaml.MappingNode):
        fields = where.mapping(node, "a span range", ("from", "to"))
        missing = [key for key in ("from", "to") if key not in fields]
        if missing:
            raise GoldError(
                f"a span range needs both 'from' and 'to' (missing: {', '.join(missing)})",
                where=where.at(node),
            )
        return SpanRange(
            _text(fields["from"][1], "span.from", where), _text(fields["to"][1], "span.to", where)
        )
    return _text(node, "span", where)


def _reason(node: yaml.Node, key: str, where: _Where) -> str | None:
    value = _value(node, key, where)
    if value is True:
        return ""
    if value is False or value is None:
        return None
    if isinstance(value, str) and value.strip():
        return value.strip()
    raise GoldError(
        f"'{key}' must be a reason (text) or true, not {shown(value)}", where=where.at(node)
    )


def _marks(node: yaml.Node, where: _Where) -> tuple[str, ...]:
    value = _value(node, "marks", where)
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not all(
        isinstance(n, str) and _MARK_NAME.match(n) for n in names
    ):
        raise GoldError("'marks' must be a list of mark names, e.g. [slow]", where=where.at(node))
    return tuple(names)


def _kind(node: yaml.Node) -> str:
    if isinstance(node, yaml.MappingNode):
        return "a mapping"
    if isinstance(node, yaml.SequenceNode):
        return "a list"
    if node.tag == "tag:yaml.org,2002:null":
        return "empty"
    return shown(node.value)
