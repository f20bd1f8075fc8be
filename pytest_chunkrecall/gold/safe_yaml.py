"""YAML as gold files are read: composed into nodes that keep their lines, with bounds on what
aliases may expand to, merge keys flattened, and syntax errors said for people.

Gold files are data, reviewed less carefully than code; a 600-byte file must not be able to
make a run build a billion values, or nest deep enough to overflow the stack.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml

from ..errors import GoldError, shown

# libyaml parses several times faster than PyYAML's pure-Python parser, which would
# otherwise dominate the collection of a large gold file; that one is for where
# PyYAML was built without libyaml. Both give the same events with the same line marks.
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

MAX_ALIAS_NODES = 10_000  # values built by following aliases, beyond those written out
MAX_CHARS = 10_000_000  # characters of text in one value, aliases followed
MAX_DEPTH = 64  # lists and mappings inside each other
_MERGE = "tag:yaml.org,2002:merge"


def read_text(path: Path, name: str) -> str:
    """The gold file's text; a file that is not UTF-8 is an error naming the line."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise GoldError(f"cannot read the gold file: {exc.strerror}", where=name) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise GoldError(
            f"not UTF-8 text: byte 0x{data[exc.start]:02x} at column {column} cannot be read; "
            "save the file as UTF-8 (most editors offer it under 'Save with encoding')",
            where=f"{name}:{line}",
        ) from None


@contextmanager
def yaml_errors(text: str, name: str) -> Iterator[None]:
    """Invalid YAML raised inside as a :class:`GoldError` naming the line (and how to fix it)."""
    try:
        yield
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else 1
        problem = " ".join(part for part in (exc.context, exc.problem) if part)
        if mark is not None and _tab_at(text, mark.line, mark.column):
            raise GoldError(
                "invalid YAML: a tab in the indentation; YAML indents with spaces only, "
                "so replace the tab with spaces",
                where=f"{name}:{line}",
            ) from None
        began = exc.context_mark
        if began is not None and mark is not None and began.line != mark.line:
            # an unclosed quote or bracket is found where the file ends: say where it began
            problem += f" (what is not closed began on line {began.line + 1})"
        raise GoldError(f"invalid YAML: {problem}", where=f"{name}:{line}") from None
    except yaml.reader.ReaderError as exc:
        line = text.count("\n", 0, exc.position) + 1
        code = (
            exc.character if isinstance(exc.character, int) else ord(str(exc.character)[:1] or " ")
        )
        raise GoldError(
            f"invalid YAML: the control character U+{code:04X} is not allowed in YAML; remove it",
            where=f"{name}:{line}",
        ) from None
    except yaml.YAMLError as exc:
        raise GoldError(f"invalid YAML: {exc}", where=name) from None
    except RecursionError:
        raise GoldError(
            f"nested too deeply to read (more than {MAX_DEPTH} levels of lists and mappings)",
            where=name,
        ) from None


def load_inline(raw: str, *, key: str) -> Any:
    """The value of an ini option written as inline YAML (``{size: 800}``), within the same
    bounds as a gold file's; raises :class:`yaml.YAMLError` for text that is no YAML."""
    node = yaml.compose(raw, Loader=LOADER)
    return None if node is None else construct(node, key, where=f"ini option {key}")


def _tab_at(text: str, line: int, column: int) -> bool:
    """Whether the YAML error at ``line``/``column`` is a tab where indentation goes."""
    lines = text.splitlines()
    if line >= len(lines):
        return False
    indent = lines[line][: len(lines[line]) - len(lines[line].lstrip(" \t"))]
    return "\t" in indent or lines[line][column : column + 1] == "\t"


def construct(node: yaml.Node, key: str, where: str) -> Any:
    """The Python value of ``node`` (the value of ``key``, at ``where``), within the bounds."""
    check_bounds(node, key, where)
    # Composing the document checks only its syntax: a tag ("!chunks 3",
    # "!!int three") can still fail here, and must not surface as a traceback.
    try:
        return yaml.SafeLoader("").construct_object(node, deep=True)
    except (yaml.YAMLError, ValueError, TypeError) as exc:
        problem = exc.problem if isinstance(exc, yaml.MarkedYAMLError) else None
        raise GoldError(f"'{key}' cannot be read: {problem or exc}", where=where) from None
    except RecursionError:
        raise GoldError(f"'{key}' is nested too deeply to read", where=where) from None


def check_bounds(node: yaml.Node, key: str, where: str) -> None:
    """Refuse a value that aliases would expand past the bounds, that contains itself,
    or that nests deeper than :data:`MAX_DEPTH`."""
    # Sizes of each node with aliases followed, computed once per node (aliases
    # are the same node object), so that measuring a bomb costs what its file does.
    sizes: dict[int, tuple[int, int, int]] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(node, False)]
    while stack:
        current, finished = stack.pop()
        kids = _children(current)
        if finished:
            open_nodes.discard(id(current))
            nodes = 1 + sum(sizes[id(kid)][0] for kid in kids)
            chars = (
                len(str(current.value))
                if isinstance(current, yaml.ScalarNode)
                else sum(sizes[id(kid)][1] for kid in kids)
            )
            depth = 1 + max((sizes[id(kid)][2] for kid in kids), default=0)
            sizes[id(current)] = (nodes, chars, depth)
            _refuse(key, where, nodes - len(sizes), chars, depth)
            continue
        if id(current) in sizes:
            continue
        if id(current) in open_nodes:
            raise GoldError(
                f"'{key}' contains itself through a YAML alias; write the value out instead",
                where=where,
            )
        open_nodes.add(id(current))
        stack.append((current, True))
        stack.extend((kid, False) for kid in kids if id(kid) not in sizes)
        if len(open_nodes) > MAX_DEPTH:
            _refuse(key, where, 0, 0, len(open_nodes))


def _refuse(key: str, where: str, alias_nodes: int, chars: int, depth: int) -> None:
    if alias_nodes > MAX_ALIAS_NODES:
        raise GoldError(
            f"'{key}' expands through YAML aliases (*name) to more than {MAX_ALIAS_NODES:,} "
            "values; write the values out, or use fewer aliases",
            where=where,
        )
    if chars > MAX_CHARS:
        raise GoldError(
            f"'{key}' holds more than {MAX_CHARS:,} characters of text; gold values are "
            "settings and questions, not documents",
            where=where,
        )
    if depth > MAX_DEPTH:
        raise GoldError(
            f"'{key}' is nested more than {MAX_DEPTH} levels deep; lists and mappings this "
            "deep are no chunker or retriever setting",
            where=where,
        )


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def merged_pairs(
    node: yaml.MappingNode,
    name: str,
    _memo: dict[int, list[tuple[yaml.Node, yaml.Node, bool]]] | None = None,
    _within: frozenset[int] = frozenset(),
) -> list[tuple[yaml.Node, yaml.Node, bool]]:
    """The mapping's key/value pairs with ``<<: *base`` merge keys flattened.

    Each pair says whether it was written in this mapping (``True``) or merged in; a
    written key overrides a merged one, as YAML's merge key means. Each merged mapping
    is flattened once and keeps each key once, so that merges of merges cost what the
    file's text does, not ten times that per level.
    """
    memo = {} if _memo is None else _memo
    merged: dict[object, tuple[yaml.Node, yaml.Node]] = {}
    own: list[tuple[yaml.Node, yaml.Node, bool]] = []
    for key_node, value_node in node.value:
        if key_node.tag != _MERGE:
            own.append((key_node, value_node, True))
            continue
        sources = value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
        where = f"{name}:{key_node.start_mark.line + 1}"
        # the first source listed wins, so the last is laid down first
        for source in reversed(sources):
            if not isinstance(source, yaml.MappingNode):
                raise GoldError(
                    "'<<' merges a mapping (<<: *name) or a list of them, not "
                    + ("a list" if isinstance(source, yaml.SequenceNode) else shown(source.value)),
                    where=where,
                )
            if id(source) in _within or source is node or len(_within) > MAX_DEPTH:
                raise GoldError("'<<' merges a mapping into itself", where=where)
            if id(source) not in memo:
                memo[id(source)] = merged_pairs(source, name, memo, _within | {id(node)})
            for key, value, _ in memo[id(source)]:
                merged[key.value if isinstance(key, yaml.ScalarNode) else id(key)] = (key, value)
    return [(key, value, False) for key, value in merged.values()] + own
