"""``merge`` refuses shards of one gold file run with different setups, naming both shards."""

from __future__ import annotations

import pytest

from pytest_chunkrecall.__main__ import main

from .conftest import POLICIES, STOREFRONT_CASES, Shop

GOLD = (
    "corpus: ../docs/policies.md\nchunker_args: {size: 80, overlap: 24}\nk: 1\n" + STOREFRONT_CASES
)


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ("chunker_args: {size: 80, overlap: 24}", "chunker_args"),
        ("retriever: rag:keywords", "retriever"),
        (None, "docs/policies.md"),  # the corpus document's text, by its fingerprint
    ],
)
def test_merge_names_both_shards_and_what_differs(
    shop: Shop, capsys: pytest.CaptureFixture[str], change: str | None, named: str
) -> None:
    shop.gold(GOLD)
    first = shop.run("-k", "refund", "--chunkrecall-report", "first.json")
    assert first.ret in (0, 1)
    gold = shop.path / "gold" / "policies.yaml"
    if change is None:
        shop.write("docs/policies.md", POLICIES.replace("Read every policy", "Read each policy"))
    elif change.startswith("chunker_args"):
        gold.write_text(gold.read_text().replace(change, "chunker_args: {size: 90, overlap: 24}"))
    else:
        gold.write_text(change + "\n" + gold.read_text())
    second = shop.run("-k", "customs", "--chunkrecall-report", "second.json")
    assert second.ret in (0, 1)
    capsys.readouterr()
    assert main(["merge", "first.json", "second.json", "--out", "merged.json"]) == 2
    error = capsys.readouterr().err
    assert "gold/policies.yaml was evaluated with two setups: first.json and second.json" in error
    assert named in error and "Traceback" not in error
    assert not (shop.path / "merged.json").exists()
