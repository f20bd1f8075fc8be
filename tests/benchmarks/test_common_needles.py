"""The common-needle corpus holds what its benchmark row says: spans of it, and common needles."""

from __future__ import annotations

import json
import random
import re
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import common_needles  # noqa: E402


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> tuple[common_needles.Corpus, Path]:
    root = tmp_path_factory.mktemp("common")
    found, _ = common_needles.write_project(root, corpus_chars=400_000, case_counts=(20, 200))
    return found, root


def cases(root: Path, count: int) -> list[dict[str, str]]:
    gold = yaml.safe_load((root / "gold" / f"common{count}.yaml").read_text(encoding="utf-8"))
    return list(gold["cases"])


def test_the_vocabulary_is_distinct_five_letter_words() -> None:
    words = common_needles.vocabulary(random.Random(1))
    assert len(set(words)) == common_needles.VOCABULARY
    assert all(re.fullmatch(r"[a-z]{5}", word) for word in words)


def test_each_span_is_corpus_text_of_200_characters_around_its_needle(
    project: tuple[common_needles.Corpus, Path],
) -> None:
    found, root = project
    text = " ".join(found.texts).replace("\n", " ")
    for case in cases(root, 200):
        assert len(case["span"]) == common_needles.SPAN_CHARS
        assert case["span"] in text
        assert f" {case['needle']} " in f" {case['span']} "


def test_a_needle_occurs_as_often_as_its_word_and_about_as_often_as_asked(
    project: tuple[common_needles.Corpus, Path],
) -> None:
    found, root = project
    text = "".join(found.texts)
    # Counted as plain substrings, as the plugin's matching sees them.
    counts = [text.count(case["needle"]) for case in cases(root, 200)]
    assert counts == [found.counts[case["needle"]] for case in cases(root, 200)]
    target = common_needles.NEEDLE_COUNT * found.chars / 20_000_000
    assert sorted(counts)[len(counts) // 2] == pytest.approx(target, rel=0.25)


def test_the_smaller_gold_file_is_the_start_of_the_larger(
    project: tuple[common_needles.Corpus, Path],
) -> None:
    _, root = project
    assert cases(root, 20) == cases(root, 200)[:20]
    assert len({case["id"] for case in cases(root, 200)}) == 200


def test_the_same_seed_writes_the_same_project(
    project: tuple[common_needles.Corpus, Path], tmp_path: Path
) -> None:
    found, root = project
    again, _ = common_needles.write_project(tmp_path, corpus_chars=400_000, case_counts=(20, 200))
    assert again.texts == found.texts
    assert cases(tmp_path, 200) == cases(root, 200)


def test_the_hand_written_test_fails_the_cases_the_plugin_fails(tmp_path: Path) -> None:
    # keywords:index returns the first chunks holding the rarest word, so that
    # many cases are ranked out: both sides must find the same ones, over the
    # smaller gold file and its first cases by hand as over the larger.
    import measure

    _, gold = common_needles.write_project(
        tmp_path,
        corpus_chars=200_000,
        case_counts=(20, 60),
        documents=10,
        retriever="keywords:index",
    )
    for count in (20, 60):
        report = tmp_path / f"report{count}.json"
        measure.pytest_run(
            tmp_path,
            *measure.PLUGIN,
            "--tb=no",
            "--chunkrecall-report",
            str(report),
            str(gold[count]),
        )
        first = {"CHUNKRECALL_BENCH_FIRST": str(count)}
        by_hand = measure.pytest_run(tmp_path, "--tb=no", "-rf", "test_handwritten.py", env=first)
        cases = json.loads(report.read_text(encoding="utf-8"))["cases"]
        plugin_failed = {case["id"] for case in cases if case["verdict"] != "hit"}
        hand_failed = set(
            re.findall(r"^FAILED test_handwritten.py::test_recall\[(\w+)\]", by_hand.output, re.M)
        )
        assert len(cases) == count
        assert f"{count - len(hand_failed)} passed" in by_hand.output
        assert 0 < len(plugin_failed) < count
        assert hand_failed == plugin_failed


def test_asked_deeper_the_hand_written_test_names_the_holding_rank_the_plugin_reports(
    tmp_path: Path,
) -> None:
    # keywords:misranked ranks the chunk a question was written from last, so that
    # most cases are ranked out with the holder some way down the deeper retrieval.
    import measure

    _, gold = common_needles.write_project(
        tmp_path,
        corpus_chars=200_000,
        case_counts=(40,),
        documents=10,
        retriever="keywords:misranked",
    )
    report = tmp_path / "report.json"
    measure.pytest_run(
        tmp_path, *measure.PLUGIN, "--tb=no", "--chunkrecall-report", str(report), str(gold[40])
    )
    deeper = {"CHUNKRECALL_BENCH_DEPTH": "50", "COLUMNS": "400"}
    by_hand = measure.pytest_run(tmp_path, "--tb=no", "-rf", "test_handwritten.py", env=deeper)
    cases = json.loads(report.read_text(encoding="utf-8"))["cases"]
    plugin = {case["id"]: case["holding_rank"] for case in cases if case["verdict"] != "hit"}
    hand = {
        case: None if rank == "None" else int(rank)
        for case, rank in re.findall(
            r"^FAILED test_handwritten.py::test_recall\[(\w+)\] - Failed: not in the top 5; "
            r"the chunk that holds it ranks (\w+) \(of 50\)",
            by_hand.output,
            re.M,
        )
    }
    assert any(rank is not None and rank > 5 for rank in plugin.values())
    assert hand == plugin
