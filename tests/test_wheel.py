"""The wheel a user installs: built from the sdist, it holds every file the package reads."""

from __future__ import annotations

import email
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import pytest_chunkrecall

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "pytest_chunkrecall"
# Read at run time through importlib.resources or by type checkers, never imported:
# an editable install finds them in the clone whether the wheel has them or not.
DATA_FILES = [
    "pytest_chunkrecall/py.typed",
    "pytest_chunkrecall/render/report.schema.json",
    "pytest_chunkrecall/render/lab.js",
    "pytest_chunkrecall/render/lab.css",
]
_NOT_SOURCE = shutil.ignore_patterns(
    ".git", ".venv", ".nox", "build", "dist", "site", "*.egg-info", "__pycache__", ".*_cache"
)

pytest.importorskip("build", reason="the wheel is built with 'build' (the test extra)")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    # A copy of the clone, so that the build's own files land outside it; the sdist
    # first and the wheel from it, as pip builds one from PyPI's sdist.
    work = tmp_path_factory.mktemp("release")
    source = work / "source"
    shutil.copytree(ROOT, source, ignore=_NOT_SOURCE)
    subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(work / "dist"), "."],
        cwd=source,
        check=True,
        capture_output=True,
    )
    (built,) = (work / "dist").glob("*.whl")
    return zipfile.ZipFile(built)


def test_the_wheel_holds_each_data_file_the_package_reads(wheel):
    names = set(wheel.namelist())
    assert [name for name in DATA_FILES if name not in names] == []


def test_the_wheel_holds_every_file_of_the_package(wheel):
    names = set(wheel.namelist())
    source = {
        path.relative_to(ROOT).as_posix()
        for path in PACKAGE.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    }
    assert source - names == set()
    # nothing else: no tests, no example project, no benchmarks
    assert {name.split("/")[0] for name in names} == {
        "pytest_chunkrecall",
        f"pytest_chunkrecall-{pytest_chunkrecall.__version__}.dist-info",
    }


def test_the_wheel_metadata_is_what_an_index_shows(wheel):
    (metadata_name,) = [name for name in wheel.namelist() if name.endswith(".dist-info/METADATA")]
    metadata = email.message_from_bytes(wheel.read(metadata_name))
    assert metadata["Name"] == "pytest-chunkrecall"
    assert metadata["Version"] == pytest_chunkrecall.__version__
    assert metadata["License-Expression"] == "MIT"
    classifiers = metadata.get_all("Classifier")
    assert "Framework :: Pytest" in classifiers
    versions = [
        c.rsplit(" ", 1)[1] for c in classifiers if c.count("::") == 2 and "Python :: 3." in c
    ]
    assert versions and f">={versions[0]}" == metadata["Requires-Python"]
    assert {url.split(",")[0] for url in metadata.get_all("Project-URL")} >= {
        "Homepage", "Documentation", "Source", "Issues", "Changelog",
    }  # fmt: skip
    assert metadata["Description-Content-Type"] == "text/markdown"
    assert metadata.get_payload().startswith("# pytest-chunkrecall")
    (entry_points,) = [n for n in wheel.namelist() if n.endswith(".dist-info/entry_points.txt")]
    assert "chunkrecall = pytest_chunkrecall.plugin" in wheel.read(entry_points).decode()
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in wheel.namelist())
