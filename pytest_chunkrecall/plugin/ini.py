"""The plugin's ini options: registered and read through the settings table, each value
checked by its row, and warned about at its line.

pytest 9 reads the native ``[tool.pytest]`` table with TOML's own types and hands each value
over only when the registered type takes it. A row whose kind has a TOML type is registered
as text or that type (``str | int``), so the text forms (pytest.ini, tox.ini, setup.cfg,
``[tool.pytest.ini_options]``) stay text and are read as the commands read them
(``gold/ini_text.py``), while ``chunkrecall_k = 3`` arrives as the number 3; either way the row's one check decides. pytest has no type for a
TOML table (``chunkrecall_chunker_args = {size = 400}``) and refuses it, as a pytest before
9.2 refuses every typed value: such a value is then read from the configuration file itself.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest

from ..config.table import BY_NAME, Setting
from ..errors import ChunkrecallError
from ..gold.ini_text import ini_value

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - pytest itself needs tomli before Python 3.11
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

TYPED_TOML = pytest.version_tuple >= (9, 2)
"""Whether pytest registers an option as "text or a TOML type" (``str | int``)."""

_NATIVE_TABLES = {"pytest.toml": ("pytest",), ".pytest.toml": ("pytest",)}


def register(parser: pytest.Parser, setting: Setting) -> None:
    """Register ``setting``'s ini option, with its help and the type its kind takes."""
    kind = setting.kind
    if kind.written == "lines":
        parser.addini(setting.option, setting.help, type="linelist")
    elif TYPED_TOML and kind.native in (int, float, bool):
        # Text first: an ini file's text is kept as written, for the row's check to read.
        typed: Any = str | kind.native
        parser.addini(setting.option, setting.help, type=typed, default="")
    else:
        parser.addini(setting.option, setting.help, type="string")


def ini_given(config: pytest.Config, name: str) -> Any:
    """The checked value of the ini option of row ``name``, or ``None`` where none is given.

    Raises ``pytest.UsageError`` naming the option and saying what is wrong with its value.
    """
    setting = BY_NAME[name]
    try:
        return ini_value(setting, _raw(config, setting))
    except ChunkrecallError as exc:
        raise pytest.UsageError(str(exc)) from None


def ini_setting(config: pytest.Config, name: str) -> Any:
    """The checked value of the ini option of row ``name``, or the row's default."""
    given = ini_given(config, name)
    return BY_NAME[name].default if given is None else given


def _raw(config: pytest.Config, setting: Setting) -> Any:
    try:
        value = config.getini(setting.option)
    except (pytest.UsageError, TypeError, ValueError) as exc:
        # What pytest refused is given to the row's check as the file has it, so that
        # `chunkrecall_k = 2.5` is told what k takes, as `chunkrecall_k = 2.5` in pytest.ini is.
        native = native_value(config.inipath, setting.option)
        if native is None:
            raise pytest.UsageError(str(exc)) from None
        return native
    return value.strip() if isinstance(value, str) else value


def native_value(inipath: Path | None, option: str) -> Any:
    """``option``'s value in the native TOML table of ``inipath`` (``[tool.pytest]``, or
    ``[pytest]`` of a pytest.toml), with its TOML type; ``None`` when it has none."""
    if inipath is None or inipath.suffix != ".toml":
        return None
    try:
        document = tomllib.loads(inipath.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    table: Any = document
    for key in _NATIVE_TABLES.get(inipath.name, ("tool", "pytest")):
        table = table.get(key) if isinstance(table, dict) else None
    return table.get(option) if isinstance(table, dict) else None


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
