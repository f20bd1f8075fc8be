"""``python -m pytest_chunkrecall import qa``: question/answer rows anchored in the user's corpus."""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from pytest_chunkrecall.gold import parse

from .conftest import Shop
from .html_site import html_site
from .import_support import command, files_under, needs_doc_key, run_pytest, without_doc_keys

RETURNS = """\
# Returns

Items can be returned within 30 days of delivery. Opened items carry a
restocking fee of 15 percent.

Refunds go back to the original payment method.
"""
SHIPPING = """\
# Shipping

Express shipping takes 2 business days. Standard shipping takes 5 business days.

- Orders over 50 dollars ship free.
- Members return for free within 30 days.
"""
RESOLVABLE = [
    {
        "id": "express",
        "question": "How long does express shipping take?",
        "answer": "2 business days",
    },
    # case and a line break differ from the text: still one occurrence
    {"question": "What is the restocking fee?", "answer": "RESTOCKING  fee of 15 Percent"},
    # "30 days" is in both documents; the row's doc settles it
    {"question": "How long is the return window?", "answer": "30 days", "doc": "returns.md"},
]
UNRESOLVABLE = [
    {"id": "window", "question": "Within how many days can I return?", "answer": "30 days"},
    {"id": "refund", "question": "Where do refunds go?", "answer": "the original payment methods"},
]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "returns.md").write_text(RETURNS, encoding="utf-8")
    (tmp_path / "docs" / "shipping.md").write_text(SHIPPING, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def jsonl(path: Path, rows: list[dict[str, str]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def csv_file(path: Path, rows: list[dict[str, str]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=["id", "question", "answer", "doc"])
        writer.writeheader()
        writer.writerows(rows)
    return path


def load(path: Path) -> dict[str, object]:
    data: dict[str, object] = yaml.safe_load(path.read_text("utf-8"))
    return data


@pytest.mark.parametrize("write", [jsonl, csv_file], ids=["jsonl", "csv"])
def test_each_answer_found_once_becomes_a_case_with_its_sentence(capsys, project, write):
    rows = write(project / f"rows.{'jsonl' if write is jsonl else 'csv'}", RESOLVABLE)
    status, out, _ = command(
        capsys, "import", "qa", rows, "--corpus", "docs/*.md", "--out", "gold/faq.yaml"
    )
    assert status == 0, out
    assert "import qa: 3 resolved, 0 ambiguous, 0 not found" in out
    gold = load(project / "gold" / "faq.yaml")
    assert gold["corpus"] == "../docs/*.md"
    assert gold["cases"] == [
        {"id": "express", "question": "How long does express shipping take?",
         "needle": "2 business days", "span": "Express shipping takes 2 business days.",
         "doc": "../docs/shipping.md"},
        {"id": "what-is-the-restocking-fee", "question": "What is the restocking fee?",
         "needle": "restocking fee of 15 percent",  # as the document has it
         "span": "Opened items carry a restocking fee of 15 percent.", "doc": "../docs/returns.md"},
        {"id": "how-long-is-the-return-window", "question": "How long is the return window?",
         "needle": "30 days", "span": "Items can be returned within 30 days of delivery.",
         "doc": "../docs/returns.md"},
    ]  # fmt: skip
    assert not (project / "gold" / "faq.unresolved.yaml").exists()


def test_csv_headers_are_read_whatever_their_case(capsys, project):
    (project / "faq.csv").write_text(
        "Question,Answer,Source\nHow fast is express shipping?,2 business days,FAQ page 3\n",
        "utf-8",
    )
    status, out, _ = command(
        capsys, "import", "qa", "faq.csv", "--corpus", "docs/*.md", "--out", "gold/faq.yaml"
    )
    assert status == 0, out
    assert load(project / "gold" / "faq.yaml")["cases"][0]["needle"] == "2 business days"  # type: ignore[index]


def test_repeated_and_missing_answers_are_left_unresolved_with_their_places(capsys, project):
    rows = jsonl(project / "rows.jsonl", RESOLVABLE + UNRESOLVABLE)
    status, out, _ = command(
        capsys, "import", "qa", rows, "--corpus", "docs/*.md", "--out", "gold/faq.yaml"
    )
    assert status == 1
    assert "import qa: 3 resolved, 1 ambiguous, 1 not found" in out
    text = (project / "gold" / "faq.unresolved.yaml").read_text("utf-8")
    data = yaml.safe_load(text)
    assert "cases" not in data and data["corpus"] == "../docs/*.md"
    assert data["unresolved"] == [
        {"id": "window", "question": "Within how many days can I return?", "needle": "30 days"},
        {
            "id": "refund",
            "question": "Where do refunds go?",
            "needle": "the original payment methods",
        },
    ]
    assert "# window: ambiguous, the answer occurs 2 times:" in text
    assert "#   docs/returns.md:3: 'Items can be returned within 30 days of delivery.'" in text
    assert "#   docs/shipping.md:6: 'Members return for free within 30 days.'" in text
    assert "# refund: not found; the closest text (score 9" in text  # 96/100 or so
    assert "is at docs/returns.md:6:" in text
    assert "#   'the original payment method" in text
    assert len(load(project / "gold" / "faq.yaml")["cases"]) == 3  # type: ignore[arg-type]


def test_a_fixed_entry_moved_into_cases_is_a_valid_case(capsys, project):
    rows = jsonl(project / "rows.jsonl", RESOLVABLE + UNRESOLVABLE)
    command(capsys, "import", "qa", rows, "--corpus", "docs/*.md", "--out", "gold/faq.yaml")
    entry = load(project / "gold" / "faq.unresolved.yaml")["unresolved"][0]  # type: ignore[index]
    gold = load(project / "gold" / "faq.yaml")
    gold["cases"].append({**entry, "span": "Items can be returned within 30 days of delivery."})  # type: ignore[attr-defined]
    without = {**gold, "cases": [{k: v for k, v in c.items() if k != "doc"} for c in gold["cases"]]}  # type: ignore[attr-defined]
    parsed = parse(yaml.safe_dump(without), path=project / "gold" / "faq.yaml", name="faq.yaml")
    assert [case.id for case in parsed.cases][-1] == "window"


def test_when_every_row_is_unresolved_no_gold_file_is_written(capsys, project):
    rows = jsonl(project / "rows.jsonl", UNRESOLVABLE)
    status, _, _ = command(
        capsys, "import", "qa", rows, "--corpus", "docs/*.md", "--out", "gold/faq.yaml"
    )
    assert status == 1
    assert files_under(project / "gold") == [
        "faq.unresolved.yaml"
    ]  # an empty cases: would not load


def test_the_imported_gold_file_has_no_absent_case(capsys, pytester, project):
    rows = jsonl(project / "rows.jsonl", RESOLVABLE)
    command(capsys, "import", "qa", rows, "--corpus", "docs/*.md", "--out", "gold/faq.yaml")
    (project / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    without_doc_keys(project / "gold" / "faq.yaml")
    report = run_pytest(pytester, project)
    assert report["totals"]["cases"] == 3
    assert report["totals"]["verdicts"]["absent"] == 0


@needs_doc_key
def test_the_imported_gold_file_runs_as_written(capsys, pytester, project):
    rows = jsonl(project / "rows.jsonl", RESOLVABLE)
    command(capsys, "import", "qa", rows, "--corpus", "docs/*.md", "--out", "gold/faq.yaml")
    (project / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    report = run_pytest(pytester, project)
    assert report["totals"]["cases"] == 3
    assert report["totals"]["verdicts"]["absent"] == 0


def test_pytest_leaves_the_unresolved_file_alone(capsys, pytester, project):
    rows = jsonl(project / "rows.jsonl", [*RESOLVABLE[:2], *UNRESOLVABLE])
    command(capsys, "import", "qa", rows, "--corpus", "docs/*.md", "--out", "gold/faq.yaml")
    (project / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    without_doc_keys(project / "gold" / "faq.yaml")
    report = run_pytest(pytester, project)
    assert [f["path"] for f in report["gold_files"]] == ["gold/faq.yaml"]
    assert report["totals"]["cases"] == 2


def test_existing_gold_is_not_overwritten_without_force(capsys, project):
    rows = jsonl(project / "rows.jsonl", RESOLVABLE)
    (project / "gold").mkdir()
    (project / "gold" / "faq.yaml").write_text("# mine\n", encoding="utf-8")
    status, _, err = command(
        capsys, "import", "qa", rows, "--corpus", "docs/*.md", "--out", "gold/faq.yaml"
    )
    assert status == 2 and "would overwrite gold/faq.yaml" in err.replace(str(project) + "/", "")
    assert (project / "gold" / "faq.yaml").read_text("utf-8") == "# mine\n"
    status, _, _ = command(
        capsys, "import", "qa", rows, "--corpus", "docs/*.md", "--out", "gold/faq.yaml", "--force"
    )
    assert status == 0 and "cases:" in (project / "gold" / "faq.yaml").read_text("utf-8")


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("rows.jsonl", '{"question": "a?", "answer": "30 days"}\n\n{"question": "b?", answer: 1}\n',
         "rows.jsonl:3: this line is not a JSON object"),
        ("rows.jsonl", '{"question": "a?", "answer": "30 days"}\n{"question": "b?"}\n',
         "rows.jsonl:2: this row has no 'answer'"),
        ("rows.jsonl", '["a?", "30 days"]\n', "rows.jsonl:1: this line must be a JSON object"),
        ("rows.csv", 'question,answer\n"a\nquestion over two lines?",30 days\n,2 business days\n',
         "rows.csv:4: this row has no 'question'"),
        ("rows.csv", 'question,answer\na?,30 days,extra\n', "rows.csv:2: this row has 3 fields"),
        ("rows.csv", 'question,answer\na?,"30 days\n', "rows.csv:2: malformed CSV"),
        ("rows.jsonl", '{"question": "a?", "answer": "30 days", "doc": "faq.md"}\n',
         "rows.jsonl:1: doc 'faq.md' matches no document of the corpus (docs/returns.md, docs/shipping.md)"),
        ("rows.txt", "question,answer\n", "rows.txt: cannot tell the format"),
    ],
)  # fmt: skip
def test_bad_rows_are_one_line_naming_the_row_and_nothing_is_written(
    capsys, project, name, content, expected
):
    (project / name).write_text(content, encoding="utf-8")
    status, out, err = command(
        capsys, "import", "qa", name, "--corpus", "docs/*.md", "--out", "gold/faq.yaml"
    )
    assert status == 2
    assert err == f"error: {expected}" + err[len(expected) + 7 :] and err.count("\n") == 1, err
    assert "Traceback" not in out + err
    assert not (project / "gold").exists()


def test_an_empty_corpus_glob_is_an_error(capsys, project):
    rows = jsonl(project / "rows.jsonl", RESOLVABLE)
    status, _, err = command(
        capsys, "import", "qa", rows, "--corpus", "manuals/*.md", "--out", "gold/faq.yaml"
    )
    assert status == 2
    assert err.startswith("error: --corpus: corpus pattern 'manuals/*.md' matches no file")
    assert not (project / "gold").exists()


def test_files_that_are_not_utf8_are_named_with_their_line(capsys, project):
    (project / "rows.csv").write_bytes("question,answer\nO\xf9 ?,30 days\n".encode("latin-1"))
    status, _, err = command(
        capsys, "import", "qa", "rows.csv", "--corpus", "docs/*.md", "--out", "gold/faq.yaml"
    )
    assert (status, err) == (
        2,
        "error: rows.csv:2: the input file is not UTF-8 text (byte 0xf9); convert it to UTF-8, e.g. with iconv\n",
    )
    rows = jsonl(project / "rows.jsonl", RESOLVABLE)
    (project / "docs" / "legacy.md").write_bytes(b"line one\nCaf\xe9\n")
    status, _, err = command(
        capsys, "import", "qa", rows, "--corpus", "docs/*.md", "--out", "gold/faq.yaml"
    )
    assert status == 2 and "error: docs/legacy.md:2: the corpus file is not UTF-8" in err
    assert not (project / "gold").exists()


BENEFITS = """\
# Benefits

The equipment allowance is $500 for every new hire. The remote-work
stipend is $600 a year, paid in January.
"""


def test_an_answer_whose_sentence_shares_no_word_with_the_question_is_unresolved(capsys, project):
    (project / "docs" / "benefits.md").write_text(BENEFITS, encoding="utf-8")
    rows = jsonl(
        project / "rows.jsonl",
        [
            # the documents say $500; "$600" occurs once, in a sentence about something else
            {
                "id": "allowance",
                "question": "How much is the equipment allowance?",
                "answer": "$600",
            },
            {
                "id": "stipend",
                "question": "What is the remote-work stipend?",
                "answer": "$600 a year",
            },
        ],
    )
    status, out, _ = command(
        capsys, "import", "qa", rows, "--corpus", "docs/*.md", "--out", "gold/faq.yaml"
    )
    assert status == 1, out
    assert (
        "import qa: 1 resolved, 0 ambiguous, 0 not found, 1 with no overlap with the question"
        in out
    )
    (case,) = load(project / "gold" / "faq.yaml")["cases"]  # type: ignore[misc]
    assert case["id"] == "stipend"
    text = (project / "gold" / "faq.unresolved.yaml").read_text("utf-8")
    assert [entry["id"] for entry in yaml.safe_load(text)["unresolved"]] == ["allowance"]
    assert (
        "# allowance: no overlap with the question; the answer occurs once, at docs/benefits.md:4:"
        in text
    )
    assert "#   'The remote-work stipend is $600 a year, paid in January.'" in text


def test_imported_spans_are_written_on_one_line_with_whitespace_collapsed(capsys, project):
    rows = jsonl(project / "rows.jsonl", RESOLVABLE)
    command(capsys, "import", "qa", rows, "--corpus", "docs/*.md", "--out", "gold/faq.yaml")
    text = (project / "gold" / "faq.yaml").read_text("utf-8")
    assert "  span: Opened items carry a restocking fee of 15 percent.\n" in text
    assert all(not line.startswith(" " * 4) for line in text.splitlines())  # no continued scalar


@pytest.fixture
def site(shop: Shop, monkeypatch: pytest.MonkeyPatch) -> Iterator[Shop]:
    html_site(shop)
    monkeypatch.chdir(shop.path)
    monkeypatch.setattr(sys, "path", list(sys.path))  # the command adds the ini's pythonpath
    yield shop
    for module in ("site_loader", "lossy"):
        sys.modules.pop(module, None)


SITE_ROWS = [
    # the source has "<b>window</b> is 30 days": only the loaded text has the answer whole
    {"id": "window", "question": "What is the refund window?", "answer": "window is 30 days"},
    {
        "id": "express",
        "question": "How long does express shipping take?",
        "answer": "2 business days",
    },
]


def test_answers_are_anchored_in_the_text_the_ini_loader_makes(capsys, site):
    rows = jsonl(site.path / "rows.jsonl", SITE_ROWS)
    status, out, err = command(
        capsys, "import", "qa", rows, "--corpus", "site/*.html", "--out", "gold/faq.yaml"
    )
    assert status == 0, out + err
    assert "import qa: 2 resolved, 0 ambiguous, 0 not found" in out
    gold = load(site.path / "gold" / "faq.yaml")
    spans = {case["id"]: case["span"] for case in gold["cases"]}  # type: ignore[index]
    # the loaded text joins a heading to its first sentence, and the span says so
    assert spans == {
        "window": "Returns The refund window is 30 days from delivery.",
        "express": "Shipping Express shipping takes 2 business days .",
    }
    assert "loader" not in gold  # the ini's loader is the one the tests use anyway
    _, report = site.report("gold/faq.yaml")
    assert report["totals"]["verdicts"]["absent"] == 0
    assert [case["verdict"] for case in report["cases"]] == ["hit", "hit"]


def test_a_loader_given_is_written_and_an_answer_it_loses_is_named(capsys, site):
    site.write(
        "lossy.py",
        "import site_loader\n\n\ndef load(path):\n"
        "    return site_loader.load(path).replace('15 percent', '')\n",
    )
    rows = jsonl(
        site.path / "rows.jsonl",
        [*SITE_ROWS, {"id": "fee", "question": "What is the fee?", "answer": "fee of 15 percent"}],
    )
    status, out, _ = command(
        capsys, "import", "qa", rows, "--corpus", "site/*.html", "--out", "gold/faq.yaml",
        "--loader", "lossy:load",
    )  # fmt: skip
    assert status == 1
    assert "import qa: 2 resolved, 0 ambiguous, 1 not found" in out
    assert load(site.path / "gold" / "faq.yaml")["loader"] == "lossy:load"
    unresolved = (site.path / "gold" / "faq.unresolved.yaml").read_text("utf-8")
    assert (
        "the source file site/returns.html has it, but the text loader lossy:load makes of it "
        "does not" in unresolved
    )


def test_a_bad_loader_option_is_named(capsys, site):
    rows = jsonl(site.path / "rows.jsonl", SITE_ROWS)
    status, _, err = command(
        capsys, "import", "qa", rows, "--corpus", "site/*.html", "--out", "gold/faq.yaml",
        "--loader", "lossy",
    )  # fmt: skip
    assert status == 2
    assert err.startswith("error: --loader must be 'module:attr'"), err
