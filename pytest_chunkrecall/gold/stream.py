"""Composing a gold file case by case: the nodes of one case at a time, not of all of them.

Composed whole, a gold file of 10,000 cases is a tree of 90,000 nodes, each with
two marks: at its peak about five times the memory of the cases read from it
(33 MB for a 3 MB file). Here each item of the top-level ``cases`` list is
handed over as soon as it is complete, and dropped once read. libyaml still
parses, where PyYAML has it; only the composing (PyYAML's own composer, which
can hand over a node) is Python, and it costs no more time than libyaml's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import yaml

from .safe_yaml import yaml_errors

_C_EVENTS: Any = getattr(getattr(yaml, "cyaml", None), "CParser", None)
_EVENTS: tuple[Any, ...] = (
    (_C_EVENTS,) if _C_EVENTS else (yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser)
)


class _CaseByCase(*_EVENTS, yaml.composer.Composer, yaml.resolver.Resolver):  # type: ignore[misc]
    """Composes a gold file, handing each item of its top-level ``cases`` list to ``each``
    as soon as it is composed, instead of keeping the nodes of every case at once."""

    def __init__(self, text: str, each: Callable[[yaml.Node], None]) -> None:
        if _C_EVENTS:
            _C_EVENTS.__init__(self, text)
        else:
            yaml.reader.Reader.__init__(self, text)
            yaml.scanner.Scanner.__init__(self)
            yaml.parser.Parser.__init__(self)
        yaml.composer.Composer.__init__(self)
        yaml.resolver.Resolver.__init__(self)
        self.each = each
        self.depth = 0
        self.streamed: list[yaml.SequenceNode] = []

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        if (
            self.depth == 1  # a value of the top-level mapping
            and isinstance(index, yaml.ScalarNode)
            and index.value == "cases"
            and self.check_event(yaml.SequenceStartEvent)
            and self.peek_event().anchor is None  # an alias elsewhere may want it whole
        ):
            return self._cases()
        self.depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1

    def _cases(self) -> yaml.SequenceNode:
        # compose_sequence_node, with each item handed over rather than kept
        start = self.get_event()
        tag = start.tag
        if tag is None or tag == "!":
            tag = self.resolve(yaml.SequenceNode, None, start.implicit)  # type: ignore[no-untyped-call]
        node = yaml.SequenceNode(tag, [], start.start_mark, None, flow_style=start.flow_style)
        self.depth += 1
        number = 0
        while not self.check_event(yaml.SequenceEndEvent):
            item = super().compose_node(node, number)
            assert item is not None  # a node starts at every event but a sequence's end
            self.each(item)
            number += 1
        self.depth -= 1
        node.end_mark = self.get_event().end_mark
        self.streamed.append(node)
        return node


def compose_cases(
    text: str, name: str, each: Callable[[yaml.Node], None]
) -> tuple[yaml.Node | None, list[yaml.SequenceNode]]:
    """The document's node tree, each item of its top-level ``cases`` list handed to ``each``
    as it is composed and left out of the tree; and the ``cases`` lists so emptied.

    A gold file of ten thousand cases then never holds the nodes (and the marks
    on them) of more than one case at a time. Invalid YAML is a :class:`GoldError`
    naming the line, as with :func:`compose`.
    """
    with yaml_errors(text, name):
        loader = _CaseByCase(text, each)
        try:
            # PyYAML's, not libyaml's, which would compose every node in C
            root = yaml.composer.Composer.get_single_node(loader)
            return root, loader.streamed
        finally:
            loader.dispose()
