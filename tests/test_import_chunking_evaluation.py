"""``import chunking-evaluation``: Chroma's real questions and corpora as gold files pytest runs."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
import yaml

from pytest_chunkrecall.importing.chunking_evaluation import needle

from .import_support import command, files_under, run_pytest


def references(data: Path) -> dict[str, list[tuple[str, list[dict[str, object]]]]]:
    """Each corpus's questions with their references, read straight from the CSV."""
    found: dict[str, list[tuple[str, list[dict[str, object]]]]] = {}
    with (data / "questions_df.csv").open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            found.setdefault(row["corpus_id"], []).append(
                (row["question"], json.loads(row["references"]))
            )
    return found


def test_every_reference_becomes_a_case_anchored_at_its_offsets(
    capsys, chunking_evaluation, tmp_path
):
    status, out, _ = command(
        capsys, "import", "chunking-evaluation", chunking_evaluation / "questions_df.csv",
        "--corpora", chunking_evaluation / "corpora", "--out", tmp_path,
    )  # fmt: skip
    assert status == 0, out
    assert (
        "472 questions in 5 corpora, 790 cases: 790 resolved (0 at a corrected offset), 0 unresolved"
        in out
    )
    assert files_under(tmp_path / "gold") == sorted(
        f"{c}.yaml" for c in references(chunking_evaluation)
    )
    for corpus_id, questions in references(chunking_evaluation).items():
        gold = yaml.safe_load((tmp_path / "gold" / f"{corpus_id}.yaml").read_text("utf-8"))
        text = (tmp_path / "gold" / gold["corpus"]).read_text("utf-8")
        assert text == (chunking_evaluation / "corpora" / f"{corpus_id}.md").read_text("utf-8")
        excerpts = [(q, r) for q, refs in questions for r in refs]
        assert len(gold["cases"]) == len(excerpts)
        for case, (question, reference) in zip(gold["cases"], excerpts, strict=True):
            assert case["question"] == question
            # written with its whitespace collapsed, as the normalized match reads it
            excerpt = text[reference["start_index"] : reference["end_index"]]  # type: ignore[misc]
            assert case["span"] == " ".join(excerpt.split())
            assert " ".join(case["needle"].split()) in case["span"]


def test_the_needle_is_the_excerpts_sentence_closest_to_the_question():
    excerpt = (
        "The committee met twice. It approved a budget of 4 million dollars for the new library. "
        "Members then adjourned."
    )
    assert needle(excerpt, "What budget did the committee approve for the library?") == (
        "It approved a budget of 4 million dollars for the new library."
    )
    assert needle("One sentence only", "anything?") == "One sentence only"


@pytest.mark.slow
def test_the_imported_project_has_no_absent_case(capsys, chunking_evaluation, pytester):
    project = pytester.path / "project"
    command(
        capsys, "import", "chunking-evaluation", chunking_evaluation / "questions_df.csv",
        "--corpora", chunking_evaluation / "corpora", "--out", project,
    )  # fmt: skip
    report = run_pytest(pytester, project, "-p", "no:randomly")
    assert report["totals"]["cases"] == 790
    assert report["totals"]["verdicts"]["absent"] == 0
    assert len(report["gold_files"]) == 5


def test_shifted_offsets_are_corrected_and_a_foreign_excerpt_is_unresolved(
    capsys, chunking_evaluation, tmp_path
):
    rows = list(
        csv.DictReader(
            (chunking_evaluation / "questions_df.csv").open(encoding="utf-8", newline="")
        )
    )
    rows = [row for row in rows if row["corpus_id"] == "state_of_the_union"][:3]
    first = json.loads(rows[0]["references"])
    first[0]["start_index"] += 1  # off by one, as in real sets
    first[0]["end_index"] += 1
    rows[0]["references"] = json.dumps(first)
    second = json.loads(rows[1]["references"])
    second[0]["content"] = "This sentence was never said in the address."
    rows[1]["references"] = json.dumps(second)
    path = tmp_path / "questions_df.csv"
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=["question", "references", "corpus_id"])
        writer.writeheader()
        writer.writerows(rows)
    status, out, _ = command(
        capsys, "import", "chunking-evaluation", path, "--corpora", chunking_evaluation / "corpora",
        "--out", tmp_path / "p",
    )  # fmt: skip
    assert status == 1
    assert (
        "3 questions in 1 corpus, 5 cases: 4 resolved (1 at a corrected offset), 1 unresolved"
        in out
    )
    unresolved = (tmp_path / "p" / "gold" / "state_of_the_union.unresolved.yaml").read_text("utf-8")
    assert [e["id"] for e in yaml.safe_load(unresolved)["unresolved"]] == ["q002-1"]
    assert "# q002-1: the excerpt at 29533..29592 is not in" in unresolved
    assert "closest text (score" in unresolved


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        ('"q?","[{""content"": ""x"", ""start_index"": 0}]",state_of_the_union',
         "questions_df.csv:3: reference 1 must be {content: text, start_index: int, end_index: int}"),
        ('"q?","[{""content"": ""x"",",state_of_the_union', "questions_df.csv:3: 'references' is not JSON"),
        ('"q?","[]",state_of_the_union', "questions_df.csv:3: 'references' must be a non-empty JSON list"),
        ('"q?","[{""content"": ""x"", ""start_index"": 0, ""end_index"": 1}]",tax_code',
         "questions_df.csv:3: no corpus file tax_code.md"),
        ('"q?","[{""content"": ""x"", ""start_index"": 0, ""end_index"": 1}]",',
         "questions_df.csv:3: this row has no 'corpus_id'"),
    ],
)  # fmt: skip
def test_bad_rows_name_their_line_and_nothing_is_written(
    capsys, chunking_evaluation, tmp_path, monkeypatch, row, expected
):
    monkeypatch.chdir(tmp_path)
    good = '"Q?","[{""content"": ""Madam Speaker"", ""start_index"": 0, ""end_index"": 13}]",state_of_the_union'
    Path("questions_df.csv").write_text(
        f"question,references,corpus_id\n{good}\n{row}\n", encoding="utf-8"
    )
    status, out, err = command(
        capsys, "import", "chunking-evaluation", "questions_df.csv",
        "--corpora", chunking_evaluation / "corpora", "--out", "p",
    )  # fmt: skip
    assert status == 2
    assert err.startswith(f"error: {expected}"), err
    assert "Traceback" not in out + err
    assert not Path("p").exists()
