"""Composing a gold file case by case: the nodes of one case at a time, not of all of them.

Composed whole, a gold file holds every case's nodes, each with two marks, at
once: several times the memory of the cases read from them, and a tree that
the garbage collector walks again and again as it grows, so that composing
whole, even in libyaml, takes longer than composing here in Python. Here each
item of the top-level ``cases`` list is handed over as soon as it is complete,
and dropped once read.

The nodes are built from the parser's events, PyYAML's public streaming
interface (:func:`yaml.parse`), with the rules of PyYAML's own composer:
libyaml parses where PyYAML was built with it, PyYAML's pure-Python parser
elsewhere, and the events carry the same line marks either way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import yaml
from yaml.composer import ComposerError

from .safe_yaml import LOADER, yaml_errors


def compose_cases(
    text: str, name: str, each: Callable[[yaml.Node], None]
) -> tuple[yaml.Node | None, list[yaml.SequenceNode]]:
    """The document's node tree, each item of its top-level ``cases`` list handed to ``each``
    as it is composed and left out of the tree; and the ``cases`` lists so emptied.

    A gold file of ten thousand cases then never holds the nodes (and the marks
    on them) of more than one case at a time. Invalid YAML is a :class:`GoldError`
    naming the line.
    """
    with yaml_errors(text, name):
        composer = _CaseByCase(yaml.parse(text, Loader=LOADER), each)
        return composer.document(), composer.streamed


class _CaseByCase:
    """Builds the node tree of a single-document stream from its events, handing each item
    of the top-level ``cases`` list to ``each`` instead of keeping it in the tree."""

    def __init__(self, events: Iterator[yaml.Event], each: Callable[[yaml.Node], None]) -> None:
        self._events = events
        # Any: the stubs give libyaml's marks a type of their own, which nodes do not take
        self._next: Any = next(events)  # every stream starts with a StreamStartEvent
        self._each = each
        self._anchors: dict[str, yaml.Node] = {}
        self._resolver = yaml.resolver.Resolver()
        self.streamed: list[yaml.SequenceNode] = []

    def document(self) -> yaml.Node | None:
        """The root node of the stream's one document, or ``None`` for an empty stream."""
        self._take()  # the stream's start
        if isinstance(self._next, yaml.StreamEndEvent):
            return None
        self._take()  # the document's start
        root = self._node(top=True)
        self._take()  # the document's end
        if not isinstance(self._next, yaml.StreamEndEvent):
            raise ComposerError(
                "expected a single document in the stream",
                root.start_mark,
                "but found another document",
                self._next.start_mark,
            )
        return root

    def _take(self) -> Any:
        event = self._next
        self._next = next(self._events, None)
        return event

    def _node(self, *, top: bool = False) -> yaml.Node:
        event = self._take()
        anchor, start, end = event.anchor, event.start_mark, event.end_mark
        if isinstance(event, yaml.AliasEvent):
            if anchor not in self._anchors:
                raise ComposerError(None, None, f"found undefined alias {anchor!r}", start)
            return self._anchors[anchor]
        if anchor is not None and anchor in self._anchors:
            raise ComposerError(
                f"found duplicate anchor {anchor!r}; first occurrence",
                self._anchors[anchor].start_mark,
                "second occurrence",
                start,
            )
        node: yaml.Node
        if isinstance(event, yaml.ScalarEvent):
            tag = self._tag(event, yaml.ScalarNode, event.value)
            node = yaml.ScalarNode(tag, event.value, start, end, style=event.style)
        elif isinstance(event, yaml.SequenceStartEvent):
            tag = self._tag(event, yaml.SequenceNode, None)
            node = yaml.SequenceNode(tag, [], start, None, flow_style=event.flow_style)
        else:
            tag = self._tag(event, yaml.MappingNode, None)
            node = yaml.MappingNode(tag, [], start, None, flow_style=event.flow_style)
        # registered before its contents, as PyYAML does, so that a value containing
        # itself is composed and then refused with a message, not as an unknown alias
        if anchor is not None:
            self._anchors[anchor] = node
        if isinstance(node, yaml.SequenceNode):
            self._fill_sequence(node, node.value.append)
        elif isinstance(node, yaml.MappingNode):
            self._fill_mapping(node, top=top)
        return node

    def _tag(self, event: Any, kind: type[yaml.Node], value: str | None) -> str:
        tag: str | None = event.tag
        if tag is None or tag == "!":
            resolved: str = self._resolver.resolve(kind, value, event.implicit)  # type: ignore[no-untyped-call]
            return resolved
        return tag

    def _fill_sequence(self, node: yaml.SequenceNode, add: Callable[[yaml.Node], None]) -> None:
        while not isinstance(self._next, yaml.SequenceEndEvent):
            add(self._node())
        node.end_mark = self._take().end_mark

    def _fill_mapping(self, node: yaml.MappingNode, *, top: bool) -> None:
        while not isinstance(self._next, yaml.MappingEndEvent):
            key = self._node()
            value: yaml.Node
            if top and self._is_case_list(key):
                value = self._streamed_cases()
            else:
                value = self._node()
            node.value.append((key, value))
        node.end_mark = self._take().end_mark

    def _is_case_list(self, key: yaml.Node) -> bool:
        """Whether the value that follows ``key`` in the top-level mapping is the ``cases``
        list to hand over item by item; one with an anchor is kept whole, for its aliases."""
        return (
            isinstance(key, yaml.ScalarNode)
            and key.value == "cases"
            and isinstance(self._next, yaml.SequenceStartEvent)
            and self._next.anchor is None
        )

    def _streamed_cases(self) -> yaml.SequenceNode:
        start = self._take()
        tag = self._tag(start, yaml.SequenceNode, None)
        node = yaml.SequenceNode(tag, [], start.start_mark, None, flow_style=start.flow_style)
        self._fill_sequence(node, self._each)
        self.streamed.append(node)
        return node
