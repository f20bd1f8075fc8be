"""The project a command works in, read without pytest: its rootdir and its ini options.

``python -m pytest_chunkrecall`` commands resolve a gold file's setup as the
pytest run does, so they need what pytest would read: the nearest
configuration file at or above a start folder (which makes its folder the
rootdir, as pytest decides), and in it the ``chunkrecall_*`` options that
configure a gold file, the corpus roots, the gold patterns and ``pythonpath``.
The string forms of ``pytest.ini``, ``tox.ini``, ``setup.cfg`` and
``[tool.pytest.ini_options]`` are read, and pytest 9's native ``[tool.pytest]``
table with its TOML types; each ``chunkrecall_*`` value through its row of the
settings table, by the reader the plugin uses (``gold/ini_text.py``).
"""

from __future__ import annotations

import configparser
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pytest depends on tomli where the standard library has no tomllib
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

from ..config.settings import GOLD_KEYS, Settings
from ..config.table import BY_NAME
from ..corpus import corpus_roots
from ..errors import ChunkrecallError
from ..gold.ini_text import ini_value

# Where pytest looks for its configuration in each folder, in its order, and the section.
_INI_FILES = (
    ("pytest.ini", "pytest"),
    (".pytest.ini", "pytest"),
    ("pyproject.toml", None),
    ("tox.ini", "pytest"),
    ("setup.cfg", "tool:pytest"),
)


@dataclass(frozen=True)
class Project:
    """The rootdir and what its configuration file says that a gold file's setup needs.

    ``ini`` holds the gold-file settings the ini file gives (with their origins);
    ``roots`` the folders corpus files may come from (the rootdir first);
    ``gold`` the ``chunkrecall_gold`` patterns (empty: the default discovery);
    ``pythonpath`` and ``testpaths`` pytest's own options of those names.
    """

    rootdir: Path
    inifile: Path | None = None
    ini: Settings = field(default_factory=Settings)
    roots: tuple[Path, ...] = ()
    gold: tuple[str, ...] = ()
    pythonpath: tuple[str, ...] = ()
    testpaths: tuple[str, ...] = ()

    def importable(self) -> None:
        """Put the ini file's ``pythonpath`` folders on ``sys.path``, where pytest would
        import the project's chunker and loader from."""
        for folder in reversed(self.pythonpath):
            entry = str(self.rootdir / folder)
            if entry not in sys.path:
                sys.path.insert(0, entry)


def find_project(start: Path, *, fallback: Path) -> Project:
    """The project of the nearest pytest configuration file at or above ``start``; without
    one, ``fallback`` as the rootdir and no ini options."""
    start = start.resolve()
    for folder in (start, *start.parents):
        for file_name, section in _INI_FILES:
            path = folder / file_name
            if not path.is_file():
                continue
            options = _ini_options(path, section)
            if options is not None:
                return _project(folder, path, options)
    root = fallback.resolve()
    return Project(root, roots=corpus_roots(root, ()))


def _project(rootdir: Path, inifile: Path, options: Mapping[str, Any]) -> Project:
    return Project(
        rootdir,
        inifile,
        _ini_settings(options, rootdir),
        corpus_roots(rootdir, _ini_lines(options, "corpus_roots")),
        _ini_lines(options, "gold"),
        _lines(options.get("pythonpath")),
        _lines(options.get("testpaths")),
    )


def _lines(value: Any) -> tuple[str, ...]:
    """One of pytest's own path or args options: TOML's list, or the ini file's text split at
    whitespace."""
    if value is None:
        return ()
    if isinstance(value, list):
        return tuple(str(item) for item in value)
    return tuple(str(value).split())


def _ini_options(path: Path, section: str | None) -> dict[str, Any] | None:
    """The pytest options of one configuration file, or ``None`` when it has no pytest section."""
    try:
        if section is None:
            table = tomllib.loads(path.read_text("utf-8")).get("tool", {}).get("pytest")
            if not isinstance(table, dict):
                return None
            legacy = table.get("ini_options")
            if isinstance(legacy, dict):
                return legacy
            native = {key: value for key, value in table.items() if key != "ini_options"}
            return native or None
        parser = configparser.ConfigParser(interpolation=None)
        parser.read(path, encoding="utf-8")
    except (OSError, UnicodeDecodeError, ValueError, configparser.Error) as exc:
        raise ChunkrecallError(f"cannot read it: {exc}", where=str(path)) from None
    if not parser.has_section(section):
        return None if path.name not in ("pytest.ini", ".pytest.ini") else {}
    return dict(parser.items(section))


def _ini_settings(options: Mapping[str, Any], rootdir: Path) -> Settings:
    """The gold-file settings of the ini options, read and checked as the plugin reads them."""
    values: dict[str, Any] = {}
    origins: dict[str, str] = {}
    for key in GOLD_KEYS:
        setting = BY_NAME[key]
        value = ini_value(setting, options.get(setting.option))
        if value is not None:
            values[key], origins[key] = value, f"ini option {setting.option}"
    return Settings(**values, corpus_base=rootdir, origins=origins)


def _ini_lines(options: Mapping[str, Any], name: str) -> tuple[str, ...]:
    """The patterns or folders of the line-list ini option of row ``name``, as the plugin
    reads them (one per line); none where none is given."""
    return tuple(ini_value(BY_NAME[name], options.get(BY_NAME[name].option)) or ())
