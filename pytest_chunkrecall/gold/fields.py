"""A gold file's YAML nodes read into checked values: its settings, a case and each of its
fields, every error naming the line it is about."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import yaml

from ..config.settings import GOLD_KEYS, Settings, check_setting, did_you_mean
from ..errors import GoldError, printable, shown
from .safe_yaml import construct, merged_pairs
from .values import (
    ALTERNATIVE_KEYS,
    CASE_KEYS,
    FILE_KEYS,
    Alternative,
    Case,
    Filter,
    Span,
    SpanRange,
    slug,
)

_MARK_NAME = re.compile(r"^[A-Za-z_]\w*$")
T = TypeVar("T")


class Where:
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


def _value(node: yaml.Node, key: str, where: Where) -> Any:
    return construct(node, key, where.at(node))


def read_settings(top: dict[str, tuple[yaml.Node, yaml.Node]], where: Where) -> Settings:
    values: dict[str, Any] = {}
    origins: dict[str, str] = {}
    for key in GOLD_KEYS:
        if key in top:
            key_node, value_node = top[key]
            values[key] = _checked(key, value_node, where)
            origins[key] = where.at(key_node)
    return Settings(**values, corpus_base=where.path.parent, origins=origins)


def _checked(key: str, node: yaml.Node, where: Where) -> Any:
    value, problem = check_setting(key, _value(node, key, where))
    if problem:
        raise GoldError(f"'{key}' {problem}", where=where.at(node))
    return value


def read_case(node: yaml.Node, where: Where) -> Case:
    fields = where.mapping(
        node, "a case", CASE_KEYS, other=FILE_KEYS, other_place="the top of the file"
    )
    line = node.start_mark.line + 1

    def get(key: str, read: Callable[[yaml.Node], T]) -> T | None:
        return read(fields[key][1]) if key in fields else None

    question = get("question", lambda value_node: _text(value_node, "question", where))
    if question is None:
        raise GoldError("this case has no 'question:'", where=f"{where.name}:{line}")
    needles = _needles(fields, where)
    must_not = get("must_not", lambda value_node: _one_or_more(value_node, "must_not", where))
    must_not_doc = get(
        "must_not_doc", lambda value_node: _one_or_more(value_node, "must_not_doc", where)
    )
    alternatives = get("any_of", lambda value_node: _alternatives(value_node, where)) or ()
    _check_what_comes_back(fields, where, line, needles, alternatives, must_not or must_not_doc)
    case_id = get("id", lambda value_node: _case_id(value_node, where)) or slug(question)
    return Case(
        id=case_id,
        question=question,
        needles=needles or (),
        span=get("span", lambda value_node: _span(value_node, where)),
        line=line,
        k=get("k", lambda value_node: _checked("k", value_node, where)),
        budget=get("budget", lambda value_node: _checked("budget", value_node, where)),
        match=get("match", lambda value_node: _checked("match", value_node, where)),
        fuzzy_threshold=get(
            "fuzzy_threshold", lambda value_node: _checked("fuzzy_threshold", value_node, where)
        ),
        xfail=get("xfail", lambda value_node: _reason(value_node, "xfail", where)),
        skip=get("skip", lambda value_node: _reason(value_node, "skip", where)),
        marks=get("marks", lambda value_node: _marks(value_node, where)) or (),
        doc=get("doc", lambda value_node: read_doc(value_node, where)),
        must_not=must_not or (),
        must_not_doc=must_not_doc or (),
        filter=get("filter", lambda value_node: read_filter(value_node, where)),
        alternatives=alternatives,
    )


Fields = dict[str, tuple[yaml.Node, yaml.Node]]


def _needles(fields: Fields, where: Where) -> tuple[str, ...]:
    """``needle:`` or ``needles:`` (none: an empty tuple), refusing both."""
    if "needle" in fields and "needles" in fields:
        raise GoldError(
            "give either 'needle:' or 'needles:', not both", where=where.at(fields["needles"][0])
        )
    if "needles" in fields:
        return _texts(fields["needles"][1], "needles", where)
    if "needle" in fields:
        return (_text(fields["needle"][1], "needle", where),)
    return ()


def _check_what_comes_back(
    fields: Fields,
    where: Where,
    line: int,
    needles: tuple[str, ...],
    alternatives: tuple[Alternative, ...],
    negative: object,
) -> None:
    """A case names what must come back (needles, or ``any_of``), or only what must not."""
    if alternatives:
        mixed = [key for key in ("needle", "needles", "span") if key in fields]
        if mixed:
            raise GoldError(
                f"give either 'any_of:' or '{mixed[0]}:', not both: each alternative of any_of "
                "has its own needle, needles and span",
                where=where.at(fields[mixed[0]][0]),
            )
        return
    if not needles and not negative:
        raise GoldError(
            "this case has no 'needle:' (the text that must come back); add one, or "
            "'needles: [...]' for several, 'any_of: [...]' for alternatives, or 'must_not:' / "
            "'must_not_doc:' for a case that only checks what must not come back",
            where=f"{where.name}:{line}",
        )
    if not needles and "span" in fields:
        raise GoldError(
            "a case without a needle has no span to keep whole; add 'needle:' or drop 'span:'",
            where=where.at(fields["span"][0]),
        )


def _alternatives(node: yaml.Node, where: Where) -> tuple[Alternative, ...]:
    """``any_of:``: a non-empty list of mappings, each with a needle (or needles), and
    optionally a span and a doc."""
    if not isinstance(node, yaml.SequenceNode) or not node.value:
        raise GoldError(
            "'any_of' must be a non-empty list of alternatives, each a mapping with 'needle:' "
            "(or 'needles:') and optionally 'span:' and 'doc:'",
            where=where.at(node),
        )
    return tuple(
        _alternative(item, where, f"alternative {number} of 'any_of'")
        for number, item in enumerate(node.value, start=1)
    )


def _alternative(node: yaml.Node, where: Where, what: str) -> Alternative:
    fields = where.mapping(node, what, ALTERNATIVE_KEYS)
    needles = _needles(fields, where)
    if not needles:
        raise GoldError(
            f"{what} has no 'needle:'; give each alternative the text that must come back",
            where=where.at(node),
        )
    return Alternative(
        needles=needles,
        span=_span(fields["span"][1], where) if "span" in fields else None,
        doc=read_doc(fields["doc"][1], where) if "doc" in fields else None,
        line=node.start_mark.line + 1,
    )


def _text(node: yaml.Node, key: str, where: Where, *, label: str = "") -> str:
    # Scalars keep the text as written: `needle: 1.50` is "1.50", not 1.5.
    label = label or f"'{key}'"
    if not isinstance(node, yaml.ScalarNode) or node.tag == "tag:yaml.org,2002:null":
        raise GoldError(f"{label} must be text, not {_kind(node)}", where=where.at(node))
    text = str(node.value).strip()
    if not text:
        raise GoldError(f"{label} is empty; give its text or remove it", where=where.at(node))
    return text


def _texts(node: yaml.Node, key: str, where: Where) -> tuple[str, ...]:
    if not isinstance(node, yaml.SequenceNode) or not node.value:
        raise GoldError(f"'{key}' must be a non-empty list of text", where=where.at(node))
    return tuple(
        _text(item, key, where, label=f"item {number} of '{key}'")
        for number, item in enumerate(node.value, start=1)
    )


def _one_or_more(node: yaml.Node, key: str, where: Where) -> tuple[str, ...]:
    """A text, or a non-empty list of texts (``must_not``, ``must_not_doc``)."""
    if isinstance(node, yaml.SequenceNode):
        return _texts(node, key, where)
    return (_text(node, key, where),)


def read_filter(node: yaml.Node, where: Where) -> Filter:
    """``filter:``: any mapping, passed as it is to the retriever's search."""
    if not isinstance(node, yaml.MappingNode):
        raise GoldError(
            f"'filter' must be a mapping (passed as filter= to the retriever's search), not "
            f"{_kind(node)}; e.g. filter: {{tenant: acme}}",
            where=where.at(node),
        )
    value = _value(node, "filter", where)
    return Filter.of(value)


def read_doc(node: yaml.Node, where: Where) -> str:
    if isinstance(node, yaml.SequenceNode):
        raise GoldError(
            "'doc' must be one path or glob (text), not a list; name one document, or a glob "
            "that matches the ones that count, e.g. doc: ../docs/billing-*.md",
            where=where.at(node),
        )
    return _text(node, "doc", where)


def _case_id(node: yaml.Node, where: Where) -> str:
    text = _text(node, "id", where)
    # an id is printed in node ids, summaries, Markdown and CI annotations, as it is
    if "::" in text or printable(text) != text:
        raise GoldError(
            f"'id' may not contain '::', line breaks or other control characters: {shown(text)}",
            where=where.at(node),
        )
    return text


def _span(node: yaml.Node, where: Where) -> Span:
    if isinstance(node, yaml.MappingNode):
        _comma_in_flow_range(node, where)
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


def _comma_in_flow_range(node: yaml.MappingNode, where: Where) -> None:
    """Refuse a flow-style ``{from, to}`` whose value a comma cut apart, with the quoted
    value that was meant: in ``{from: Refunds, returns, to: 30 days}`` the comma ends
    ``from``, and ``returns`` reads as a key without a value."""
    if not node.flow_style:
        return
    pairs = [
        (key.value, value)
        for key, value in node.value
        if isinstance(key, yaml.ScalarNode) and isinstance(value, yaml.ScalarNode)
    ]
    for number, (key, value) in enumerate(pairs):
        if key not in ("from", "to"):
            continue
        cut = list(itertools.takewhile(_a_bare_word, pairs[number + 1 :]))
        if not cut:
            continue
        meant = ", ".join([value.value, *(word for word, _ in cut)])
        raise GoldError(
            f"a comma inside a flow-style span range ends its value: {shown(cut[0][0])} "
            f"reads as a key of its own. Quote a value that holds a comma, e.g. "
            f"{{{key}: {json.dumps(meant, ensure_ascii=False)}, ...}}, or write the span "
            "range as a block mapping, one key a line",
            where=where.at(cut[0][1]),
        )


def _a_bare_word(pair: tuple[str, yaml.ScalarNode]) -> bool:
    """Whether a pair of a flow mapping is a word with no value: text a comma cut off."""
    key, value = pair
    return key not in ("from", "to") and value.tag == "tag:yaml.org,2002:null"


def _reason(node: yaml.Node, key: str, where: Where) -> str | None:
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


def _marks(node: yaml.Node, where: Where) -> tuple[str, ...]:
    value = _value(node, "marks", where)
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not all(
        isinstance(name, str) and _MARK_NAME.match(name) for name in names
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
