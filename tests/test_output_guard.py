"""The one output guard: no file the plugin or its commands write replaces the project's own.

Each scenario names a path that some writer used to replace (a gold file, the corpus a gold
file's ``corpus:`` names, ``pytest.ini``, ``conftest.py``, ``.git``, another plugin's output)
and checks what the user sees: a usage error (exit 4 under pytest, 2 from a command) that
names the path and what it is, no traceback, and every file of the project byte for byte
as it was.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_chunkrecall.baseline.update import write_updated
from pytest_chunkrecall.errors import ChunkrecallError

from .conftest import QUIET

POLICIES = "Refunds. The refund window is 30 days from delivery.\n"
GOLD = """\
corpus: ../docs/*.md
cases:
  - id: refund-window
    question: What is the refund window?
    needle: 30 days
"""
SUITE = """\
corpus: ../docs/*.md
cases:
  - id: refund
    question: How long is the refund window?
    needle: 30 days
"""
USAGE = pytest.ExitCode.USAGE_ERROR


@pytest.fixture
def project(pytester: pytest.Pytester) -> Path:
    """A project whose corpus only its gold files name (no ini ``chunkrecall_corpus``)."""
    files = {
        "pytest.ini": "[pytest]\n",
        "conftest.py": "# the project's fixtures\n",
        "docs/policies.md": POLICIES,
        "gold/policies.yaml": GOLD,
        "suites/b.yml": SUITE,
        ".git/config": "[core]\n\tbare = false\n",
    }
    for name, text in files.items():
        path = pytester.path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return pytester.path


@pytest.fixture
def reports(project: Path, pytester: pytest.Pytester) -> Path:
    """The project with a JSON report (r.json) and a baseline (b.json) of one run."""
    result = pytester.runpytest(
        *QUIET,
        *("--chunkrecall-report", "r.json", "--chunkrecall-baseline", "b.json"),
        "--chunkrecall-update-baseline",
    )
    assert result.ret == 0, result.stdout.str()
    return project


def snapshot(folder: Path) -> dict[str, bytes | str]:
    """Every file under ``folder`` by name: its bytes, or where a symlink points."""
    found: dict[str, bytes | str] = {}
    for path in sorted(folder.rglob("*")):
        name = path.relative_to(folder).as_posix()
        if path.is_symlink():
            found[name] = f"-> {os.readlink(path)}"
        elif path.is_file():
            found[name] = path.read_bytes()
    return found


def refused(pytester: pytest.Pytester, *args: str, says: str) -> str:
    """Run pytest with ``args``: a usage error that ``says`` it, and nothing written."""
    before = snapshot(pytester.path)
    result = pytester.runpytest(*QUIET, "-p", "no:cacheprovider", *args)
    output = "\n".join(result.outlines + result.errlines)
    assert result.ret == USAGE, output
    assert says in output, output
    assert "Traceback" not in output and "INTERNALERROR" not in output, output
    assert snapshot(pytester.path) == before
    return output


def command(folder: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    """``python -m pytest_chunkrecall ARGS`` in ``folder``: its exit status and its output."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest_chunkrecall", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), **(env or {})},
    )
    return done.returncode, done.stdout + done.stderr


def command_refused(folder: Path, *args: str, says: str, env: dict[str, str] | None = None) -> str:
    """Run the command: exit status 2 with a one-line error that ``says`` it, nothing written."""
    before = snapshot(folder)
    status, output = command(folder, *args, env=env)
    assert status == 2, output
    assert f"error: {says}" in output, output
    assert "Traceback" not in output, output
    assert snapshot(folder) == before
    return output


# ---------------------------------------------------------------- compare and merge


def test_compare_never_writes_its_markdown_over_a_gold_file(reports: Path) -> None:
    command_refused(
        reports,
        *("compare", "r.json", "--baseline", "b.json", "--markdown", "gold/policies.yaml"),
        says="--markdown gold/policies.yaml: it is a gold file",
    )


def test_compare_never_writes_its_report_over_a_corpus_document(reports: Path) -> None:
    output = command_refused(
        reports,
        *("compare", "r.json", "--baseline", "b.json", "--report-out", "docs/policies.md"),
        says="--report-out docs/policies.md: it is the corpus of gold/policies.yaml "
        "(corpus: '../docs/*.md'), and compare never writes over the project's own files, "
        "even with --force",
    )
    assert "give another path" in output


def test_compare_replaces_a_file_of_another_kind_only_with_force(reports: Path) -> None:
    (reports / "notes.md").write_text("# my notes\n", encoding="utf-8")
    compare = ("compare", "r.json", "--baseline", "b.json", "--markdown", "notes.md")
    command_refused(
        reports,
        *compare,
        says="--markdown notes.md: it exists and was not written by pytest-chunkrecall; "
        "give another path, or add --force to replace it",
    )
    status, output = command(reports, *compare, "--force")
    assert status == 0, output
    assert "chunkrecall" in (reports / "notes.md").read_text(encoding="utf-8")


def test_merge_never_writes_over_the_ini_file_even_with_force(reports: Path) -> None:
    command_refused(
        reports,
        *("merge", "r.json", "--out", "pytest.ini", "--force"),
        says="--out pytest.ini: it is the project's pytest.ini, and merge never writes over "
        "the project's own files, even with --force",
    )


@pytest.fixture
def ini_corpus(pytester: pytest.Pytester) -> Path:
    """A project whose corpus only the ini file names, with a report and a baseline."""
    (pytester.path / "docs").mkdir()
    (pytester.path / "docs" / "policies.md").write_text(POLICIES, encoding="utf-8")
    pytester.makeini("[pytest]\nchunkrecall_corpus = docs/*.md\n")
    (pytester.path / "gold").mkdir()
    (pytester.path / "gold" / "policies.yaml").write_text(
        GOLD.replace("corpus: ../docs/*.md\n", ""), encoding="utf-8"
    )
    result = pytester.runpytest(
        *QUIET,
        *("--chunkrecall-report", "r.json", "--chunkrecall-baseline", "b.json"),
        "--chunkrecall-update-baseline",
    )
    assert result.ret == 0, result.stdout.str()
    return pytester.path


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (("compare", "r.json", "--baseline", "b.json", "--force"), "--markdown"),
        (("merge", "r.json", "--force"), "--out"),
    ],
    ids=["compare", "merge"],
)
def test_commands_never_write_over_the_corpus_the_ini_names(
    ini_corpus: Path, args: tuple[str, ...], option: str
) -> None:
    command_refused(
        ini_corpus,
        *args,
        *(option, "docs/policies.md"),
        says=f"{option} docs/policies.md: it is a corpus document of gold/policies.yaml",
    )


def test_export_never_writes_over_the_corpus_the_ini_names(ini_corpus: Path) -> None:
    (ini_corpus / "docs" / "qrels.txt").symlink_to(ini_corpus / "docs" / "policies.md")
    command_refused(
        ini_corpus,
        *("export", "trec", "r.json", "--out", "docs", "--force"),
        says="docs/qrels.txt: it is a corpus document of gold/policies.yaml",
    )


def test_merge_with_a_name_too_long_is_a_clear_error(reports: Path) -> None:
    long = "m" * 300 + ".json"
    output = command_refused(
        reports,
        *("merge", "r.json", "--out", long),
        says=f"--out {long}: the name",
    )
    assert "305 bytes long" in output and "give a shorter path" in output


# ---------------------------------------------------------------- import and export


def test_import_never_writes_through_a_symlink_onto_a_corpus_document(project: Path) -> None:
    (project / "rows.jsonl").write_text(
        json.dumps({"question": "What is the refund window?", "answer": "30 days"}) + "\n",
        encoding="utf-8",
    )
    (project / "gold" / "x.yaml").symlink_to(project / "docs" / "policies.md")
    command_refused(
        project,
        *("import", "qa", "rows.jsonl", "--corpus", "docs/*.md", "--out", "gold/x.yaml"),
        "--force",
        says="gold/x.yaml: it is a corpus document of this import (--corpus 'docs/*.md'), and "
        "import never writes over the project's own files",
    )
    assert (project / "docs" / "policies.md").read_text(encoding="utf-8") == POLICIES


def test_import_never_writes_through_a_symlink_onto_another_gold_files_corpus(
    project: Path,
) -> None:
    (project / "other" / "faq.md").parent.mkdir()
    (project / "other" / "faq.md").write_text(POLICIES, encoding="utf-8")
    (project / "rows.jsonl").write_text(
        json.dumps({"question": "What is the refund window?", "answer": "30 days"}) + "\n",
        encoding="utf-8",
    )
    (project / "gold" / "x.yaml").symlink_to(project / "docs" / "policies.md")
    command_refused(
        project,
        *("import", "qa", "rows.jsonl", "--corpus", "other/*.md", "--out", "gold/x.yaml"),
        "--force",
        says="gold/x.yaml: it is the corpus of gold/policies.yaml (corpus: '../docs/*.md')",
    )


def test_import_with_force_replaces_the_gold_file_it_wrote(project: Path) -> None:
    (project / "rows.jsonl").write_text(
        json.dumps({"question": "What is the refund window?", "answer": "30 days"}) + "\n",
        encoding="utf-8",
    )
    qa = ("import", "qa", "rows.jsonl", "--corpus", "docs/*.md", "--out", "gold/faq.yaml")
    assert command(project, *qa)[0] == 0
    written = (project / "gold" / "faq.yaml").read_text(encoding="utf-8")
    assert "corpus:" in written  # a gold file, with the corpus it names
    (project / "gold" / "faq.yaml").write_text(written + "# edited\n", encoding="utf-8")
    status, output = command(project, *qa, "--force")
    assert status == 0, output
    assert (project / "gold" / "faq.yaml").read_text(encoding="utf-8") == written


@pytest.mark.parametrize("force", [(), ("--force",)])
def test_export_trec_into_a_file_says_that_out_names_a_folder(
    reports: Path, force: tuple[str, ...]
) -> None:
    (reports / "afile").write_text("mine\n", encoding="utf-8")
    command_refused(
        reports,
        *("export", "trec", "r.json", "--out", "afile", *force),
        says="--out afile is a file, and --out names a folder: qrels.txt and run.txt are "
        "written into it",
    )


# ---------------------------------------------------------------- the step summary


def test_the_step_summary_is_never_the_ini_file(
    project: Path, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = str(project / "pytest.ini")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", summary)
    refused(
        pytester,
        says=f"GITHUB_STEP_SUMMARY {summary}: it is the ini file of this run, and the run never "
        "writes over the project's own files",
    )


def test_compare_never_appends_its_summary_to_a_gold_file(reports: Path) -> None:
    (reports / "summary.md").symlink_to(reports / "gold" / "policies.yaml")
    output = command_refused(
        reports,
        *("compare", "r.json", "--baseline", "b.json"),
        env={"GITHUB_STEP_SUMMARY": "summary.md"},
        says="GITHUB_STEP_SUMMARY summary.md: it is a gold file",
    )
    assert "unset it, or name another file (the Markdown summary is appended to it)" in output


# ---------------------------------------------------------------- pytest's outputs


def test_force_never_replaces_the_corpus_a_gold_file_names(
    project: Path, pytester: pytest.Pytester
) -> None:
    refused(
        pytester,
        *("--chunkrecall-html", "docs/policies.md", "--chunkrecall-force"),
        says="--chunkrecall-html docs/policies.md: it is the corpus of gold/policies.yaml "
        "(corpus: '../docs/*.md'), and the run never writes over the project's own files, "
        "even with --chunkrecall-force",
    )


def test_a_symlink_onto_the_corpus_is_that_document(
    project: Path, pytester: pytest.Pytester
) -> None:
    (project / "out.json").symlink_to(project / "docs" / "policies.md")
    refused(
        pytester,
        *("--chunkrecall-report", "out.json", "--chunkrecall-force"),
        says="--chunkrecall-report out.json: it is the corpus of gold/policies.yaml",
    )


def test_a_gold_file_named_on_the_command_line_is_never_an_output(
    project: Path, pytester: pytest.Pytester
) -> None:
    refused(
        pytester,
        *("suites/b.yml", "--chunkrecall-markdown", "suites/b.yml", "--chunkrecall-force"),
        says="--chunkrecall-markdown suites/b.yml: it is a gold file named on the command line",
    )


@pytest.mark.parametrize(
    ("path", "what"),
    [
        ("conftest.py", "it is the project's conftest.py"),
        ("gold/new.yaml", "it is a gold file (a YAML file in a folder named gold)"),
        ("docs/new.md", "it is the corpus of gold/policies.yaml (corpus: '../docs/*.md')"),
    ],
)
def test_the_baseline_is_never_written_onto_a_project_file(
    project: Path, pytester: pytest.Pytester, path: str, what: str
) -> None:
    refused(
        pytester,
        *("--chunkrecall-baseline", path, "--chunkrecall-update-baseline"),
        says=f"cannot write baseline {path}: {what}",
    )
    assert not (project / "gold" / "new.yaml").exists()


def test_the_baseline_is_never_where_the_ini_collects_gold_files(
    project: Path, pytester: pytest.Pytester
) -> None:
    (project / "pytest.ini").write_text("[pytest]\nchunkrecall_gold = suites/*.yml\n")
    refused(
        pytester,
        *("--chunkrecall-baseline", "suites/new.yml", "--chunkrecall-update-baseline"),
        says="cannot write baseline suites/new.yml: it is where gold files are collected "
        "(ini option chunkrecall_gold: 'suites/*.yml')",
    )


def test_force_never_writes_into_git(project: Path, pytester: pytest.Pytester) -> None:
    refused(
        pytester,
        *("--chunkrecall-report", ".git/config", "--chunkrecall-force"),
        says="--chunkrecall-report .git/config: it is inside .git, the repository's own data",
    )


@pytest.mark.parametrize(
    ("option", "plugin"),
    [
        (("--junitxml", "j.out"), "--junitxml"),
        (("--json-report", "--json-report-file", "j.out"), "--json-report-file"),
        (("--html", "j.out"), "pytest-html's --html"),
    ],
)
def test_an_output_is_never_another_plugins_output(
    project: Path, pytester: pytest.Pytester, option: tuple[str, ...], plugin: str
) -> None:
    refused(
        pytester,
        *("--chunkrecall-report", "j.out", *option),
        says=f"--chunkrecall-report j.out: it is the file of {plugin} in this run; "
        "give each output its own path",
    )
    assert not (project / "j.out").exists()


def test_an_output_name_too_long_is_a_usage_error(project: Path, pytester: pytest.Pytester) -> None:
    long = "r" * 300 + ".json"
    refused(
        pytester,
        *("--chunkrecall-report", long),
        says=f"--chunkrecall-report {long}: the name",
    )


def test_a_baseline_name_too_long_is_a_usage_error(
    project: Path, pytester: pytest.Pytester
) -> None:
    long = "b" * 300 + ".json"
    refused(
        pytester,
        *("--chunkrecall-baseline", long),
        says=f"cannot read baseline {long}: its name is longer than this file system holds",
    )


def test_an_output_path_with_a_line_break_is_quoted(
    project: Path, pytester: pytest.Pytester
) -> None:
    name = "bad\nname.json"
    (project / name).write_text('{"results": []}\n', encoding="utf-8")
    output = refused(
        pytester,
        *("--chunkrecall-report", name),
        says="--chunkrecall-report 'bad\\nname.json': it exists and is not a chunkrecall report",
    )
    assert "bad\nname" not in output


# ---------------------------------------------------------------- the baseline's lock


def test_a_lock_file_in_the_way_is_named_before_the_run(
    project: Path, pytester: pytest.Pytester
) -> None:
    (project / ".b.json.lock").mkdir()
    refused(
        pytester,
        *("--chunkrecall-baseline", "b.json", "--chunkrecall-update-baseline"),
        says="cannot write baseline b.json: its lock file",
    )


def test_a_lock_file_in_the_way_at_the_end_is_named(tmp_path: Path) -> None:
    (tmp_path / ".b.json.lock").mkdir()
    with pytest.raises(ChunkrecallError) as raised:
        write_updated(tmp_path / "b.json", "b.json", {}, existing={}, setups={})
    message = str(raised.value)
    assert f"cannot open its lock file {tmp_path / '.b.json.lock'}: it is a folder" in message
    assert not (tmp_path / "b.json").exists()


def test_a_report_written_to_a_path_with_a_line_break_is_named_quoted(
    project: Path, pytester: pytest.Pytester
) -> None:
    result = pytester.runpytest(
        *QUIET, "-p", "no:cacheprovider", "--chunkrecall-report", "a\nb.json"
    )
    assert result.ret == 0, result.stdout.str()
    assert "chunkrecall: JSON report written to 'a\\nb.json'" in result.outlines
    assert (
        json.loads((project / "a\nb.json").read_text(encoding="utf-8"))["chunkrecall_report"] == 1
    )
