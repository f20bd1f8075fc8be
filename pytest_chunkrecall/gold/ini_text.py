"""An ini option's value as its row reads it: the one reader of the pytest face and the commands.

An ini file gives text (pytest.ini, tox.ini, setup.cfg, ``[tool.pytest.ini_options]``);
pytest 9's native ``[tool.pytest]`` table gives TOML's own types. Text is turned into a value
the way the row's :attr:`~pytest_chunkrecall.config.kinds.Kind.written` says, inline mappings
with the gold file's YAML reader and its bounds; then every value goes through the row's one
check. So ``python -m pytest_chunkrecall`` commands read an ini file as the pytest run does.
"""

from __future__ import annotations

from typing import Any

import yaml

from ..config.table import Setting
from ..errors import ChunkrecallError, shown
from .safe_yaml import load_inline

_SWITCH = dict.fromkeys(("true", "yes", "on", "1", "t", "y"), True) | dict.fromkeys(
    ("false", "no", "off", "0", "f", "n"), False
)


def ini_value(setting: Setting, raw: Any) -> Any:
    """The checked value of ``setting``'s ini option given as ``raw`` (an ini file's text or a
    TOML value), or ``None`` where none is given.

    Raises :class:`ChunkrecallError` naming the option and saying what is wrong with its value.
    """
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return None
    if isinstance(raw, list | tuple) and not raw:
        return None
    value = from_text(setting, raw) if isinstance(raw, str) else raw
    checked, problem = setting.check(value)
    if problem:
        raise ChunkrecallError(f"ini option {setting.option} {problem}")
    return checked


def from_text(setting: Setting, text: str) -> Any:
    """What an ini file's ``text`` means for ``setting``; text that means nothing of the kind is
    passed on as it is, for the row's check to name. Raises :class:`ChunkrecallError` for an
    inline mapping that is no YAML or JSON."""
    text = text.strip()
    written = setting.kind.written
    if written == "whole":
        try:
            return int(text, 10)
        except ValueError:
            return text
    if written == "number":
        try:
            return float(text)
        except ValueError:
            return text
    if written == "switch":
        return _SWITCH.get(text.lower(), text)
    if written == "inline":
        try:
            return load_inline(text, key=setting.option)
        except yaml.YAMLError:
            raise ChunkrecallError(
                f"ini option {setting.option}: cannot read {shown(text)} as YAML or JSON"
            ) from None
    if written == "lines":
        return [line.strip() for line in text.splitlines() if line.strip()]
    return text
