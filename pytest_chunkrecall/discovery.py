"""Which YAML files in a ``gold`` folder are gold files, decided from their top-level keys.

A ``gold`` folder is a common name: snapshot tests keep expected API responses in
``tests/gold/*.yaml`` too. Only a mapping with ``cases`` or another gold-file key is
claimed, or one whose key looks like a misspelt ``cases`` (so that the author hears
of it). The keys are read from the parser's events, never by building the document,
so a file of any size (or an alias bomb) costs a glance.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from .config.settings import did_you_mean
from .gold import FILE_KEYS

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_CASES_LINE = re.compile(r"^cases\s*:", re.MULTILINE)
# What python -m pytest_chunkrecall import writes for answers it could not place.
_NOT_GOLD = "unresolved"


def collected_as_gold(path: Path, rootdir: Path, chosen: set[Path] | None) -> bool:
    """Whether the run collects the YAML file at ``path`` as a gold file.

    ``chosen`` is what the ``chunkrecall_gold`` patterns match (resolved paths),
    or ``None`` for the default: a gold file inside a folder named ``gold``.
    A file named on the command line is collected as well; that is the caller's
    to check, since only it knows the arguments.
    """
    if path.suffix not in (".yaml", ".yml"):
        return False
    if chosen is not None:
        return path.resolve() in chosen
    parts = path.parent.relative_to(rootdir).parts if path.is_relative_to(rootdir) else ()
    # a snapshot test's YAML in a folder named gold is left alone
    return "gold" in parts and is_gold_file(path)


def is_gold_file(path: Path) -> bool:
    """Whether the default discovery collects the YAML file at ``path``."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return True  # let the collector say what is wrong with it
    keys = top_level_keys(text)
    if keys is None:
        # not YAML at all: a gold file with a syntax error still says 'cases:'
        return bool(_CASES_LINE.search(text))
    if not keys or (_NOT_GOLD in keys and "cases" not in keys):
        return False
    return any(key in FILE_KEYS or did_you_mean(key, ("cases",)) for key in keys)


def top_level_keys(text: str) -> list[str] | None:
    """The top-level mapping's scalar keys; ``[]`` for any other document, ``None``: not YAML."""
    keys: list[str] = []
    depth, at_key = 0, True
    try:
        for event in yaml.parse(text, Loader=_LOADER):
            if isinstance(event, yaml.MappingStartEvent | yaml.SequenceStartEvent):
                if depth == 0 and isinstance(event, yaml.SequenceStartEvent):
                    return []
                depth += 1
            elif isinstance(event, yaml.MappingEndEvent | yaml.SequenceEndEvent):
                depth -= 1
                if depth == 0:
                    return keys
                at_key = at_key or depth == 1
            elif isinstance(event, yaml.ScalarEvent | yaml.AliasEvent):
                if depth == 0:
                    return []
                if depth == 1:
                    if at_key and isinstance(event, yaml.ScalarEvent):
                        keys.append(str(event.value))
                    at_key = not at_key
    except yaml.YAMLError:
        return None
    return keys
