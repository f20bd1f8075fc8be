"""``python -m pytest_chunkrecall import squad``: SQuAD v1.1 and v2.0 files as a project pytest runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from .import_support import command, files_under, needs_doc_key, run_pytest, without_doc_keys

BROADCAST = (
    "Super Bowl 50 was an American football game to determine the champion of the National "
    "Football League (NFL) for the 2015 season. The American Football Conference (AFC) champion "
    "Denver Broncos defeated the National Football Conference (NFC) champion Carolina Panthers "
    "24\u201310 to earn their third Super Bowl title. The game was played on February 7, 2016, at "
    "Levi's Stadium in the San Francisco Bay Area at Santa Clara, California."
)
HALFTIME = (
    "CBS broadcast Super Bowl 50 in the U.S., and charged an average of $5 million for a "
    "30-second commercial during the game. The halftime show was headlined by the British rock "
    "group Coldplay. Coldplay was joined by special guest performers Beyoncé and Bruno Mars."
)
WARSAW = (
    "Warsaw is the capital and largest city of Poland. It stands on the Vistula River in "
    "east-central Poland, roughly 260 kilometres from the Baltic Sea. Its population is "
    "estimated at 1.740 million residents within a greater metropolitan area of 2.666 million "
    "residents, which makes Warsaw the 9th most-populous capital city in the European Union."
)


def qa(
    qid: str, question: str, context: str, answer: str, *, shift: int = 0, nth: int = 0
) -> dict[str, Any]:
    """A SQuAD question whose answer_start points at the ``nth`` occurrence, off by ``shift``."""
    start = -1
    for _ in range(nth + 1):
        start = context.index(answer, start + 1)
    return {
        "id": qid,
        "question": question,
        "answers": [{"text": answer, "answer_start": start + shift}],
    }


def squad_file(path: Path, version: str) -> Path:
    """A small SQuAD file: two articles, correct, off-by-one and repeated answers."""
    broadcast = [
        qa("5733be284776f41900661182", "Who won Super Bowl 50?", BROADCAST, "Denver Broncos"),
        qa(
            "5733be284776f41900661183",
            "Where was Super Bowl 50 played?",
            BROADCAST,
            "Levi's Stadium",
            shift=1,
        ),
        qa(
            "5733be284776f41900661184", "Which team lost?", BROADCAST, "Carolina Panthers", shift=-1
        ),
    ]
    halftime = [
        # "Coldplay" occurs twice; answer_start names the second, in the sentence about the guests
        qa(
            "56be4db0acb8001400a502ec",
            "Who joined the headliners on stage?",
            HALFTIME,
            "Coldplay",
            nth=1,
        ),
        qa(
            "56be4db0acb8001400a502ed",
            "Which network broadcast the game in the U.S.?",
            HALFTIME,
            "CBS",
        ),
        qa(
            "56be4db0acb8001400a502ee",
            "What did a 30-second commercial cost?",
            HALFTIME,
            "$5 million",
            shift=2,
        ),
    ]
    warsaw = [
        qa("56de0f6c4396321400ee257e", "How far is Warsaw from the Baltic Sea?", WARSAW, "260 kilometres"),
        # Case and spacing differ from the text: found folded, the needle as the text has it
        {"id": "56de0f6c4396321400ee2580", "question": "On which river does Warsaw stand?",
         "answers": [{"text": "vistula  river", "answer_start": WARSAW.index("Vistula River")}]},
        # An answer that is not in its paragraph at all: left unresolved, not guessed
        {"id": "56de0f6c4396321400ee257f", "question": "What is Warsaw's nickname?",
         "answers": [{"text": "Phoenix City", "answer_start": 10}]},
    ]  # fmt: skip
    if version == "v2.0":
        warsaw.append(
            {"id": "5ad3d5b1604f3c001a3ffd33", "question": "What is the capital of Lithuania?",
             "answers": [], "plausible_answers": [{"text": "Warsaw", "answer_start": 0}],
             "is_impossible": True}
        )  # fmt: skip
        for item in broadcast + halftime:
            item["is_impossible"] = False
    data = {
        "version": version,
        "data": [
            {"title": "Super_Bowl_50", "paragraphs": [
                {"context": BROADCAST, "qas": broadcast}, {"context": HALFTIME, "qas": halftime}]},
            {"title": "Warsaw", "paragraphs": [{"context": WARSAW, "qas": warsaw}]},
        ],
    }  # fmt: skip
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.fixture(params=["v1.1", "v2.0"])
def squad(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    return squad_file(tmp_path / f"dev-{request.param}.json", request.param)


def cases_of(gold_file: Path) -> dict[str, dict[str, str]]:
    return {case["id"]: case for case in yaml.safe_load(gold_file.read_text("utf-8"))["cases"]}


def test_each_article_becomes_a_document_of_its_paragraphs(capsys, squad, tmp_path):
    status, out, _ = command(capsys, "import", "squad", squad, "--out", tmp_path / "project")
    project = tmp_path / "project"
    assert status == 1, out  # one answer is not in its paragraph
    assert (project / "docs" / "super_bowl_50.md").read_text(
        "utf-8"
    ) == BROADCAST + "\n\n" + HALFTIME + "\n"
    assert (project / "docs" / "warsaw.md").read_text("utf-8") == WARSAW + "\n"
    assert (project / "pytest.ini").read_text("utf-8").startswith("[pytest]")


def test_cases_carry_the_dataset_id_the_first_answer_and_its_sentence(capsys, squad, tmp_path):
    command(capsys, "import", "squad", squad, "--out", tmp_path)
    cases = cases_of(tmp_path / "gold" / f"{squad.stem.replace('.', '-')}.yaml")
    winner = cases["5733be284776f41900661182"]
    assert winner == {
        "id": "5733be284776f41900661182",
        "question": "Who won Super Bowl 50?",
        "needle": "Denver Broncos",
        "span": "The American Football Conference (AFC) champion Denver Broncos defeated the "
        "National Football Conference (NFC) champion Carolina Panthers 24\u201310 to earn their "
        "third Super Bowl title.",
        "doc": "../docs/super_bowl_50.md",
    }
    # "U.S." does not end the sentence; the repeated answer takes the occurrence answer_start names
    assert cases["56be4db0acb8001400a502ed"]["span"].startswith(
        "CBS broadcast Super Bowl 50 in the U.S., and"
    )
    assert cases["56be4db0acb8001400a502ec"]["span"] == (
        "Coldplay was joined by special guest performers Beyoncé and Bruno Mars."
    )
    documents = {p.name: p.read_text("utf-8") for p in (tmp_path / "docs").iterdir()}
    for case in cases.values():
        assert case["needle"] in case["span"]
        assert case["span"] in documents[Path(case["doc"]).name]


def test_off_offsets_are_corrected_and_counted(capsys, squad, tmp_path):
    _, out, _ = command(capsys, "import", "squad", squad, "--out", tmp_path)
    assert "4 answer_start offsets corrected to the nearest occurrence" in out
    cases = cases_of(tmp_path / "gold" / f"{squad.stem.replace('.', '-')}.yaml")
    assert cases["56de0f6c4396321400ee2580"]["needle"] == "Vistula River"
    assert cases["56be4db0acb8001400a502ee"]["span"].endswith(
        "for a 30-second commercial during the game."
    )


def test_unanswerable_questions_are_skipped_and_counted(capsys, tmp_path):
    path = squad_file(tmp_path / "dev-v2.0.json", "v2.0")
    _, out, _ = command(capsys, "import", "squad", path, "--out", tmp_path / "p")
    assert "8 cases; 1 unanswerable question skipped" in out
    assert "5ad3d5b1604f3c001a3ffd33" not in (tmp_path / "p" / "gold" / "dev-v2-0.yaml").read_text()


def test_an_answer_missing_from_its_paragraph_is_left_unresolved(capsys, squad, tmp_path):
    _, out, _ = command(capsys, "import", "squad", squad, "--out", tmp_path)
    unresolved = tmp_path / "gold" / f"{squad.stem.replace('.', '-')}.unresolved.yaml"
    text = unresolved.read_text("utf-8")
    data = yaml.safe_load(text)
    assert "cases" not in data
    assert [entry["id"] for entry in data["unresolved"]] == ["56de0f6c4396321400ee257f"]
    assert "# 56de0f6c4396321400ee257f: the answer 'Phoenix City' is not in its paragraph" in text
    assert "#   closest text (score " in text
    assert "1 unresolved" in out


def test_the_imported_project_has_no_absent_case(capsys, pytester, tmp_path):
    # pytest runs the project as the plugin reads it today; the cases keep their spans.
    squad = squad_file(tmp_path / "dev-v1.1.json", "v1.1")
    project = pytester.path / "project"
    command(capsys, "import", "squad", squad, "--out", project)
    (project / "gold" / "dev-v1-1.unresolved.yaml").unlink()
    without_doc_keys(project / "gold" / "dev-v1-1.yaml")
    report = run_pytest(pytester, project)
    assert report["totals"]["cases"] == 8
    assert report["totals"]["verdicts"]["absent"] == 0


@needs_doc_key
def test_the_imported_project_runs_as_written(capsys, pytester, tmp_path):
    squad = squad_file(tmp_path / "dev-v2.0.json", "v2.0")
    project = pytester.path / "project"
    command(capsys, "import", "squad", squad, "--out", project)
    (project / "gold" / "dev-v2-0.unresolved.yaml").unlink()
    report = run_pytest(pytester, project)
    assert report["totals"]["cases"] == 8
    assert report["totals"]["verdicts"]["absent"] == 0


def test_existing_files_are_kept_without_force(capsys, squad, tmp_path):
    command(capsys, "import", "squad", squad, "--out", tmp_path / "p")
    doc = tmp_path / "p" / "docs" / "warsaw.md"
    doc.write_text("edited by hand", encoding="utf-8")
    status, _, err = command(capsys, "import", "squad", squad, "--out", tmp_path / "p")
    assert status == 2
    assert "would overwrite" in err and "--force" in err
    assert doc.read_text("utf-8") == "edited by hand"
    status, _, _ = command(capsys, "import", "squad", squad, "--out", tmp_path / "p", "--force")
    assert status == 1
    assert doc.read_text("utf-8") == WARSAW + "\n"


def test_a_pytest_ini_of_the_user_is_never_replaced(capsys, squad, tmp_path):
    (tmp_path / "pytest.ini").write_text("[pytest]\naddopts = -q\n", encoding="utf-8")
    _, out, _ = command(capsys, "import", "squad", squad, "--out", tmp_path, "--force")
    assert (tmp_path / "pytest.ini").read_text("utf-8") == "[pytest]\naddopts = -q\n"
    assert f"kept {tmp_path / 'pytest.ini'} (it exists)" in out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"data": [\n  {"title": "x",\n', ":3: the SQuAD file is not valid JSON"),
        ('{"data": {"title": "x"}}', "'data' must be a list"),
        (
            '{"data": [{"title": "x", "paragraphs": [{"qas": []}]}]}',
            "data[0].paragraphs[0]: 'context'",
        ),
        (
            '{"data": [{"title": "x", "paragraphs": [{"context": "a b", "qas": '
            '[{"id": "1", "answers": [{"text": "a", "answer_start": 0}]}]}]}]}',
            "data[0].paragraphs[0].qas[0]: 'question' is missing",
        ),
        (
            '{"data": [{"title": "x", "paragraphs": [{"context": "a b", "qas": '
            '[{"id": "1", "question": "q?", "answers": [{"text": "a", "answer_start": "0"}]}]}]}]}',
            "'answer_start' must be a character offset",
        ),
    ],
)
def test_bad_input_is_one_line_naming_the_place_and_nothing_is_written(
    capsys, tmp_path, content, message
):
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    status, out, err = command(capsys, "import", "squad", path, "--out", tmp_path / "p")
    assert status == 2
    assert err.startswith(f"error: {path}") and message in err, err
    assert "Traceback" not in err + out
    assert files_under(tmp_path / "p") == []


def test_a_file_that_is_not_utf8_is_named_with_its_line(capsys, tmp_path):
    path = tmp_path / "latin1.json"
    path.write_bytes('{"data": [\n{"title": "Zürich"}]}'.encode("latin-1"))
    status, _, err = command(capsys, "import", "squad", path, "--out", tmp_path / "p")
    assert status == 2
    assert f"{path}:2: the SQuAD file is not UTF-8 text (byte 0xfc)" in err
    assert files_under(tmp_path / "p") == []


def test_help_names_every_format():
    for args, expected in [
        ([], ["import", "export"]),
        (["import"], ["squad", "qa", "chunking-evaluation"]),
        (["export"], ["trec"]),
    ]:
        finished = subprocess.run(
            [sys.executable, "-m", "pytest_chunkrecall", *args, "--help"],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        assert all(word in finished.stdout for word in expected), finished.stdout
