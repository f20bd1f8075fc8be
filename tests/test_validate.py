"""``python -m pytest_chunkrecall validate``: gold files checked against the loaded corpus."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

import pytest

from .conftest import Shop
from .html_site import html_site
from .import_support import command

CARE_GOLD = """\
corpus: ../docs/care.md
cases:
  - id: wipe
    question: How often do I wipe leather?
    needle: once a week
  - id: storage
    question: How do I store bags?
    needle: stuffed with newspaper
"""


@pytest.fixture
def project(shop: Shop, monkeypatch: pytest.MonkeyPatch) -> Iterator[Shop]:
    shop.gold(CARE_GOLD, "gold/care.yaml")
    monkeypatch.chdir(shop.path)
    monkeypatch.setattr(sys, "path", list(sys.path))  # the command adds the ini's pythonpath
    yield shop
    for module in ("site_loader", "broken_loader"):
        sys.modules.pop(module, None)


def test_a_stale_needle_is_named_with_the_closest_text_ready_to_paste(capsys, project):
    status, out, err = command(capsys, "validate", "gold/care.yaml")
    assert (status, err) == (1, "")
    lines = out.splitlines()
    assert lines[0] == (
        "gold/care.yaml:6: case 'storage': needle 'stuffed with newspaper' is not in the "
        'corpus; closest: "stuffed with paper" (docs/care.md:3)'
    )
    assert lines[1].startswith("validate: 1 gold file, 2 cases: 1 problem (")
    assert len(lines) == 2


def test_clean_gold_files_exit_0_and_the_default_is_what_pytest_collects(capsys, project):
    project.gold(CARE_GOLD.replace("newspaper", "paper"), "gold/care.yaml")
    project.gold("corpus: ../docs/policies.md\ncases:\n  - question: q\n    needle: 30 days\n")
    project.write("gold/snapshot.yaml", "status: 200\nbody: {}\n")  # not a gold file
    project.write(
        "other/faq.yaml", "corpus: ../docs/care.md\ncases:\n  - question: q\n    needle: nope\n"
    )
    status, out, _ = command(capsys, "validate")
    assert status == 0
    assert out.startswith("validate: 2 gold files, 3 cases: no problems (")
    result = project.run("--collect-only", "-q")
    assert sum(1 for line in result.stdout.lines if "::" in line) == 3


def test_the_same_errors_as_collection_with_file_and_line(capsys, project):
    project.gold(
        "corpus: ../docs/policies.md\ncases:\n  - question: q\n    neddle: 30 days\n",
        "gold/typo.yaml",
    )
    status, out, _ = command(capsys, "validate", "gold/typo.yaml", "gold/care.yaml")
    assert status == 1
    first = out.splitlines()[0]
    assert first.startswith("gold/typo.yaml:4: ")
    result = project.run("gold/typo.yaml")
    assert any(line.endswith(first) for line in result.stdout.lines), (first, result.stdout.str())
    assert "gold/care.yaml:6: case 'storage'" in out  # the next file is still checked


def test_a_doc_that_names_no_document_and_a_span_without_its_needle(capsys, project):
    project.gold(
        """\
        corpus: ../docs/*.md
        cases:
          - id: pinned
            question: q
            needle: 30 days
            doc: ../docs/nowhere.md
          - id: range
            question: q
            needle: 12 months
            span: {from: The refund window, to: delivery date}
        """,
        "gold/pins.yaml",
    )
    status, out, _ = command(capsys, "validate", "gold/pins.yaml")
    assert status == 1
    lines = out.splitlines()
    assert lines[0].startswith(
        "gold/pins.yaml:3: case 'pinned': doc '../docs/nowhere.md' matches no corpus document"
    )
    assert lines[1].startswith(
        "gold/pins.yaml:7: case 'range': needle '12 months' is not inside the span "
        "from 'The refund window' to 'delivery date'"
    )


def test_one_id_in_two_gold_files_over_one_corpus(capsys, project):
    one = "corpus: ../docs/policies.md\ncases:\n  - id: refund\n    question: q\n    needle: 30 days\n"
    project.gold(one, "gold/a.yaml")
    project.gold(one, "gold/b.yaml")
    project.gold(
        one.replace("policies.md", "care.md").replace("30 days", "once a week"), "gold/c.yaml"
    )
    status, out, _ = command(capsys, "validate", "gold/a.yaml", "gold/b.yaml", "gold/c.yaml")
    assert status == 1
    assert out.splitlines()[0] == (
        "gold/b.yaml:3: case id 'refund' is also the id of a case in gold/a.yaml:3, over the "
        "same corpus; give each case an id of its own"
    )
    assert "gold/c.yaml" not in out


def test_the_loader_applies_and_a_text_it_loses_is_named(capsys, project):
    html_site(project)
    project.gold(
        """\
        corpus: ../site/*.html
        cases:
          - id: window
            question: What is the refund window?
            needle: refund window is 30 days
          - id: tracking
            question: How long is tracking kept?
            needle: tracking = "30 days"
        """,
        "gold/site.yaml",
    )
    status, out, _ = command(capsys, "validate", "gold/site.yaml")
    assert status == 1
    # whole in the loaded text only: the source file has "refund <b>window</b> is"
    assert "case 'window'" not in out
    assert (
        "gold/site.yaml:6: case 'tracking': needle 'tracking = \"30 days\"' is not in the corpus"
        in out
    )
    project.write(
        "lossy.py",
        "import site_loader\n\n\ndef load(path):\n"
        "    return site_loader.load(path).replace('15 percent', '')\n",
    )
    project.gold(
        "corpus: ../site/*.html\nloader: lossy:load\n"
        "cases:\n  - id: fee\n    question: q\n    needle: fee of 15 percent\n",
        "gold/fees.yaml",
    )
    status, out, _ = command(capsys, "validate", "gold/fees.yaml")
    sys.modules.pop("lossy", None)
    assert status == 1
    assert out.splitlines()[0] == (
        "gold/fees.yaml:4: case 'fee': needle 'fee of 15 percent' is not in the corpus, though "
        "the source file site/returns.html has it: the loader loses it"
    )


def test_a_loader_that_raises_or_an_unreadable_corpus_is_one_line_and_the_rest_is_checked(
    capsys, project
):
    project.write(
        "broken_loader.py", "def load(path):\n    raise ValueError('no parser for ' + path.name)\n"
    )
    project.write("docs/legacy.md", b"caf\xe9 au lait\n")
    project.gold(
        "corpus: ../docs/policies.md\nloader: broken_loader:load\ncases:\n  - question: q\n    needle: x\n",
        "gold/a.yaml",
    )
    project.gold(
        "corpus: ../docs/legacy.md\ncases:\n  - question: q\n    needle: x\n", "gold/b.yaml"
    )
    status, out, err = command(capsys, "validate", "gold/a.yaml", "gold/b.yaml", "gold/care.yaml")
    assert (status, err) == (1, "")
    lines = out.splitlines()
    assert lines[0].startswith(
        "gold/a.yaml:1: loader broken_loader:load failed on docs/policies.md:"
    )
    assert lines[0].endswith("ValueError: no parser for policies.md")
    assert lines[1].startswith("gold/b.yaml:1: corpus file docs/legacy.md is not UTF-8 text")
    assert lines[2].startswith("gold/care.yaml:6: case 'storage'")
    assert lines[3].startswith("validate: 3 gold files, 2 cases: 3 problems (")
    assert "Traceback" not in out


def test_corpus_outside_the_roots_is_refused_as_pytest_refuses_it(
    capsys, project, tmp_path_factory
):
    outside = tmp_path_factory.mktemp("outside")
    (outside / "hosts.txt").write_text("127.0.0.1 localhost\n", encoding="utf-8")
    project.gold(
        f"corpus: {outside}/host*\ncases:\n  - question: q\n    needle: localhost\n", "gold/a.yaml"
    )
    status, out, _ = command(capsys, "validate", "gold/a.yaml")
    assert status == 1
    assert out.startswith("gold/a.yaml:1: corpus file ") and "lies outside the rootdir" in out


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (None, "gold file gold/nope.yaml does not exist"),
        (lambda path: path.mkdir(), "gold file gold/nope.yaml is a folder, not a file"),
        (os.mkfifo, "gold file gold/nope.yaml: it is a FIFO"),
        (lambda path: path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00"), "gold file gold/nope.yaml is a binary file"),
    ],
    ids=["missing", "folder", "fifo", "binary"],
)  # fmt: skip
def test_a_gold_path_that_is_no_gold_file_is_a_usage_error(capsys, project, make, said):
    if make is not None:
        make(project.path / "gold" / "nope.yaml")
    status, out, err = command(capsys, "validate", "gold/care.yaml", "gold/nope.yaml")
    assert (status, out) == (2, "")
    assert err.startswith(f"error: {said}"), err


def test_changed_files_select_the_gold_files_they_touch(capsys, project):
    project.gold("corpus: ../docs/policies.md\ncases:\n  - question: q\n    needle: 31 days\n")
    status, out, _ = command(capsys, "validate", "--changed", "docs/care.md", "README.md")
    assert status == 1
    assert "gold/care.yaml:6:" in out and "gold/policies.yaml" not in out
    assert out.splitlines()[-1].startswith("validate: 1 gold file, 2 cases: 1 problem")
    status, out, _ = command(capsys, "validate", "--changed", "gold/policies.yaml", "gone.md")
    assert status == 1
    assert "gold/policies.yaml:3:" in out and "gold/care.yaml" not in out
    status, out, _ = command(capsys, "validate", "--changed", "README.md")
    assert status == 0 and out.startswith("validate: 0 gold files, 0 cases: no problems")


def test_the_closest_text_ends_at_its_last_word_not_its_punctuation(capsys, project):
    project.write("docs/shipping.md", "Express shipping takes 2 business days.\n")
    project.gold(
        "corpus: ../docs/shipping.md\ncases:\n  - question: q\n    needle: 3 business days\n"
    )
    status, out, _ = command(capsys, "validate", "gold/policies.yaml")
    assert status == 1
    assert out.splitlines()[0].endswith('closest: "2 business days" (docs/shipping.md:1)'), out


def test_a_changed_gold_file_outside_testpaths_is_checked_as_pytest_folder_collects_it(
    capsys, project
):
    project.ini("testpaths = gold\n")
    project.gold(CARE_GOLD.replace("../docs", "../../docs"), "pages/gold/care.yaml")
    _, out, _ = command(capsys, "validate")
    assert "pages/gold" not in out  # pytest without arguments does not collect it
    status, out, _ = command(capsys, "validate", "--changed", "pages/gold/care.yaml")
    assert status == 1
    assert out.splitlines()[0].startswith("pages/gold/care.yaml:6: case 'storage'")
    assert "gold/care.yaml:6" not in out.replace("pages/gold/care.yaml:6", "")
