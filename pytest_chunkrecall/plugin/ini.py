"""The plugin's ini options: read, checked against their range, and warned about at their line."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest


def ini_value(config: pytest.Config, key: str) -> Any:
    """The ini option ``chunkrecall_<key>`` as pytest read it, a string stripped."""
    value = config.getini(f"chunkrecall_{key}")
    return value.strip() if isinstance(value, str) else value


def ini_whole(config: pytest.Config, key: str, default: int, *, low: int, high: int) -> int:
    """A whole-number ini option from ``low`` to ``high``; a usage error naming it otherwise."""
    raw = ini_value(config, key)
    if not raw:
        return default
    try:
        value = int(raw, 10)
    except ValueError:
        value = None
    if value is None or not low <= value <= high:
        raise pytest.UsageError(
            f"ini option chunkrecall_{key} must be a whole number from {low} to {high:,}, "
            f"not {raw!r}"
        )
    return value


def ini_switch(config: pytest.Config, key: str, *, default: bool) -> bool:
    """A true/false ini option, spelt as pytest spells its own (yes/no, on/off, 1/0 too)."""
    raw = str(ini_value(config, key) or "")
    if not raw:
        return default
    if raw.lower() not in _SWITCH:
        raise pytest.UsageError(f"ini option chunkrecall_{key} must be true or false, not {raw!r}")
    return _SWITCH[raw.lower()]


_SWITCH = dict.fromkeys(("true", "yes", "on", "1", "t", "y"), True) | dict.fromkeys(
    ("false", "no", "off", "0", "f", "n"), False
)


def ini_number(
    config: pytest.Config, key: str, default: float | None, low: float, high: float
) -> Any:
    """A number ini option from ``low`` to ``high``; a usage error naming it otherwise."""
    raw = ini_value(config, key)
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = None
    if value is None or not low <= value <= high:
        raise pytest.UsageError(
            f"ini option chunkrecall_{key} must be a number from {low:g} to {high:g}, not {raw!r}"
        )
    return value


def ini_line(inipath: Path | None, key: str) -> int:
    """The 1-based line of ``inipath`` that sets ``key`` (1 when it cannot be found)."""
    if inipath is None:
        return 1
    try:
        lines = inipath.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return 1
    setting = re.compile(rf"^\s*{re.escape(key)}\s*[=:]")
    return next((number for number, line in enumerate(lines, 1) if setting.match(line)), 1)


def warn_at_ini(config: Any, warning: Warning, key: str) -> None:
    """Issue ``warning`` through ``config.issue_config_time_warning``, located at the ini line
    that sets ``key`` rather than at the plugin line that noticed the problem.

    pytest takes a config-time warning's location from a stack frame; a frame compiled
    under the ini file's name and line is that frame, so the warnings summary reads
    ``pytest.ini:4`` and pytest's ``filterwarnings`` still apply.
    """
    inipath = getattr(config, "inipath", None)
    line = ini_line(inipath, key)
    code = compile(
        "\n" * (line - 1) + "config.issue_config_time_warning(warning, stacklevel=2)",
        str(inipath or "ini file"),
        "exec",
    )
    exec(code, {"config": config, "warning": warning})
