"""The pytest and pluggy range that pyproject.toml declares, tested at both ends.

``nox -s oldest`` installs the lowest pytest and pluggy that the dependencies allow,
read from pyproject.toml so that the bounds and the session cannot drift apart;
``nox -s newest`` the latest releases. Both run the default tests (``-m 'not slow'``);
extra arguments after ``--`` go to pytest.
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

import nox

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - nox itself runs on the CI machine's python3
    import tomli as tomllib

nox.options.sessions = ["oldest", "newest"]
nox.options.reuse_existing_virtualenvs = False

ROOT = Path(__file__).parent
RANGED = ("pytest", "pluggy")


def lower_bounds() -> dict[str, str]:
    """``{"pytest": "8.0", "pluggy": "1.5"}``: each ranged dependency's ``>=`` bound."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    bounds = {}
    for requirement in project["dependencies"]:
        found = re.fullmatch(r"([A-Za-z0-9_.-]+)\s*>=\s*([0-9][0-9.]*)\s*(?:,.*)?", requirement)
        if found and found.group(1).lower() in RANGED:
            bounds[found.group(1).lower()] = found.group(2)
    missing = set(RANGED) - set(bounds)
    if missing:
        raise SystemExit(f"pyproject.toml gives no '>=' bound for {', '.join(sorted(missing))}")
    return bounds


def _tests(session: nox.Session) -> None:
    session.run(
        "python",
        "-c",
        "import pytest, pluggy; print('pytest', pytest.__version__, 'pluggy', pluggy.__version__)",
    )
    # pytester's projects outside the clone: under nox's own TMPDIR (.nox/…/tmp) a project
    # without an ini file would take this repository's pyproject.toml for its own
    session.run("pytest", "-n", "2", "-q", *session.posargs, env={"TMPDIR": tempfile.gettempdir()})


@nox.session
def oldest(session: nox.Session) -> None:
    """The default tests with the oldest pytest and pluggy that pyproject.toml allows."""
    constraints = Path(session.create_tmp()) / "oldest.txt"
    constraints.write_text(
        "".join(f"{name}=={version}\n" for name, version in lower_bounds().items()),
        encoding="utf-8",
    )
    session.install("-c", str(constraints), ".[test]")
    _tests(session)


@nox.session
def newest(session: nox.Session) -> None:
    """The default tests with the newest pytest and pluggy."""
    session.install("--upgrade", ".[test]", *RANGED)
    _tests(session)
