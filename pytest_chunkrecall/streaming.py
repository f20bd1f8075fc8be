"""Composing a YAML document whose one long list is handed over item by item, not kept.

``yaml.compose`` builds a node, with two marks, for every scalar of the file
before anything reads it: for a gold file of ten thousand cases that tree
outweighs the cases it becomes. Here the items of the top mapping's list under
one key are composed one at a time and passed to a callback, which turns each
into its value; the rest of the document is composed as ``yaml.compose`` would.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import yaml
from yaml.composer import ComposerError


def compose(
    text: str, loader: type[Any], key: str, each: Callable[[yaml.Node], None]
) -> tuple[yaml.Node | None, int]:
    """The document's root node, and how many items of the list under ``key`` went to ``each``.

    In the root returned, that list's node has no items. Raises what
    ``yaml.compose`` raises on the same text.
    """
    composer = _Composer(loader(text), key, each)
    try:
        return composer.document(), composer.streamed
    finally:
        composer.parser.dispose()


class _Composer:
    def __init__(self, parser: Any, key: str, each: Callable[[yaml.Node], None]) -> None:
        self.parser = parser
        self.key = key
        self.each = each
        self.streamed = 0
        self.anchors: dict[str, yaml.Node] = {}

    def document(self) -> yaml.Node | None:
        parser = self.parser
        parser.get_event()  # the stream's start
        root = None
        if not parser.check_event(yaml.StreamEndEvent):
            start: Any = parser.get_event()
            root = self.node(top=True)
            parser.get_event()  # the document's end
            self.anchors = {}
            if not parser.check_event(yaml.StreamEndEvent):
                raise ComposerError(
                    "expected a single document in the stream",
                    start.start_mark,
                    "but found another document",
                    _start(parser.get_event()),
                )
        parser.get_event()  # the stream's end
        return root

    def node(self, *, top: bool = False, streamed: bool = False) -> yaml.Node:
        parser = self.parser
        event: Any = parser.get_event()  # libyaml's marks are not yaml.Mark to the stubs
        if isinstance(event, yaml.AliasEvent):
            if event.anchor not in self.anchors:
                raise ComposerError(None, None, "found undefined alias", _start(event))
            return self.anchors[event.anchor]
        node: yaml.Node
        start: Any = event.start_mark
        end: Any = event.end_mark
        if isinstance(event, yaml.ScalarEvent):
            node = yaml.ScalarNode(
                self.tag(event, yaml.ScalarNode, event.value), event.value, start, end,
                style=event.style,
            )  # fmt: skip
            self.anchor(event, node)
        elif isinstance(event, yaml.SequenceStartEvent):
            node = yaml.SequenceNode(
                self.tag(event, yaml.SequenceNode, None), [], start, None,
                flow_style=event.flow_style,
            )  # fmt: skip
            self.anchor(event, node)
            while not parser.check_event(yaml.SequenceEndEvent):
                item = self.node()
                if streamed:
                    self.streamed += 1
                    self.each(item)
                else:
                    node.value.append(item)
            node.end_mark = _end(parser.get_event())
        else:
            node = yaml.MappingNode(
                self.tag(event, yaml.MappingNode, None), [], start, None,
                flow_style=event.flow_style,
            )  # fmt: skip
            self.anchor(event, node)
            while not parser.check_event(yaml.MappingEndEvent):
                key = self.node()
                # An alias may point into a list streamed away: only a list
                # written out under the key is streamed, and only at the top.
                stream = (
                    top
                    and isinstance(key, yaml.ScalarNode)
                    and key.value == self.key
                    and parser.check_event(yaml.SequenceStartEvent)
                    and not getattr(parser.peek_event(), "anchor", None)
                )
                node.value.append((key, self.node(streamed=stream)))
            node.end_mark = _end(parser.get_event())
        return node

    def tag(self, event: Any, kind: type[yaml.Node], value: str | None) -> str:
        tag = event.tag
        if tag is None or tag == "!":
            tag = self.parser.resolve(kind, value, event.implicit)
        return str(tag)

    def anchor(self, event: Any, node: yaml.Node) -> None:
        anchor = event.anchor
        if anchor is None:
            return
        if anchor in self.anchors:
            raise ComposerError(
                "found duplicate anchor; first occurrence",
                self.anchors[anchor].start_mark,
                "second occurrence",
                event.start_mark,
            )
        self.anchors[anchor] = node


def _start(event: Any) -> Any:
    return event.start_mark


def _end(event: Any) -> Any:
    return event.end_mark
