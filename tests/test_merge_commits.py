"""The report records where it was run from; ``merge`` refuses shards of two commits."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

import pytest_chunkrecall
from pytest_chunkrecall.__main__ import main

from .conftest import STOREFRONT_CASES, Shop

GOLD = (
    "corpus: ../docs/policies.md\nchunker_args: {size: 80, overlap: 24}\nk: 1\n" + STOREFRONT_CASES
)


def git(shop: Shop, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=Shop", "-c", "user.email=shop@example.com", *args],
        cwd=shop.path,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def commit(shop: Shop, message: str) -> str:
    """Commit everything in the project; the new commit's sha."""
    git(shop, "add", "-A")
    git(shop, "commit", "-q", "--allow-empty", "-m", message)
    return git(shop, "rev-parse", "HEAD")


def shard(shop: Shop, keyword: str, out: str) -> dict[str, object]:
    result = shop.run("-k", keyword, "--chunkrecall-report", out)
    assert result.ret in (0, 1), result.stdout.str()
    data: dict[str, object] = json.loads((shop.path / out).read_text(encoding="utf-8"))
    return data


@pytest.fixture
def repo(shop: Shop) -> Shop:
    shop.gold(GOLD)
    git(shop, "init", "-q")
    return shop


def test_shards_of_two_commits_are_refused_naming_both(
    repo: Shop, capsys: pytest.CaptureFixture[str]
) -> None:
    old = commit(repo, "first")
    assert shard(repo, "refund", "first.json")["source"] == {
        "version": pytest_chunkrecall.__version__,
        "commit": old,
    }
    repo.write("NOTES.md", "The gold files did not change; the code did.\n")
    new = commit(repo, "second")
    assert shard(repo, "customs", "second.json")["source"] == {
        "version": pytest_chunkrecall.__version__,
        "commit": new,
    }
    capsys.readouterr()
    assert main(["merge", "first.json", "second.json", "--out", "merged.json"]) == 2
    error = capsys.readouterr().err
    assert f"first.json and second.json were run from different commits ({old} and {new})" in error
    assert "--allow-mixed" in error and "Traceback" not in error
    assert not (repo.path / "merged.json").exists()

    assert (
        main(["merge", "first.json", "second.json", "--out", "merged.json", "--allow-mixed"]) == 0
    )
    merged = json.loads((repo.path / "merged.json").read_text(encoding="utf-8"))
    assert merged["source"] == {"version": pytest_chunkrecall.__version__, "commit": None}
    assert merged["totals"]["cases"] == 2  # the refund case and the customs case


def test_shards_of_one_commit_merge_and_keep_it(repo: Shop) -> None:
    sha = commit(repo, "only")
    shard(repo, "refund", "first.json")
    shard(repo, "customs", "second.json")
    assert main(["merge", "first.json", "second.json", "--out", "merged.json"]) == 0
    merged = json.loads((repo.path / "merged.json").read_text(encoding="utf-8"))
    assert merged["source"]["commit"] == sha
    assert merged["totals"]["cases"] == 2  # the refund case and the customs case


def test_no_commit_outside_a_work_tree_agrees_with_any_and_no_source_is_refused(
    shop: Shop, capsys: pytest.CaptureFixture[str]
) -> None:
    shop.gold(GOLD)
    data = shard(shop, "refund", "first.json")
    assert data["source"] == {"version": pytest_chunkrecall.__version__, "commit": None}
    second = shard(shop, "customs", "second.json")
    second["source"]["commit"] = "0" * 40
    Path(shop.path / "second.json").write_text(json.dumps(second), encoding="utf-8")
    assert main(["merge", "first.json", "second.json", "--out", "merged.json"]) == 0
    merged = json.loads((shop.path / "merged.json").read_text(encoding="utf-8"))
    assert merged["source"] == {"version": pytest_chunkrecall.__version__, "commit": "0" * 40}
    del second["source"]  # a report of a version that recorded none, or an edited one
    Path(shop.path / "second.json").write_text(json.dumps(second), encoding="utf-8")
    capsys.readouterr()
    assert main(["merge", "first.json", "second.json", "--out", "other.json"]) == 2
    assert "second.json has no 'source'" in capsys.readouterr().err
    assert not (shop.path / "other.json").exists()


def test_a_different_version_is_refused_and_a_damaged_source_named(
    shop: Shop, capsys: pytest.CaptureFixture[str]
) -> None:
    shop.gold(GOLD)
    shard(shop, "refund", "first.json")
    second = shard(shop, "customs", "second.json")
    second["source"] = {"version": "0.0.9", "commit": None}
    (shop.path / "second.json").write_text(json.dumps(second), encoding="utf-8")
    capsys.readouterr()
    assert main(["merge", "first.json", "second.json", "--out", "merged.json"]) == 2
    error = capsys.readouterr().err
    assert (
        "first.json and second.json were run from different pytest-chunkrecall versions "
        f"({pytest_chunkrecall.__version__} and 0.0.9)"
    ) in error
    second["source"] = "main"
    # not named .json: the suite checks every .json report against the schema
    (shop.path / "damaged.report").write_text(json.dumps(second), encoding="utf-8")
    assert main(["merge", "first.json", "damaged.report", "--out", "merged.json"]) == 2
    error = capsys.readouterr().err
    assert "damaged.report is damaged: 'source' must be an object" in error
    assert "Traceback" not in error
