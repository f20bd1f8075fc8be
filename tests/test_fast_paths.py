"""The code made fast for large suites, against the simple definitions it replaced.

Benchmarks measure the speed (``python benchmarks/run.py``); these tests only
check that the fast code computes exactly what the plain version would.
"""

from __future__ import annotations

import dataclasses

from pytest_chunkrecall.results import CaseResult, ChunkView, Closest, CutView, Held

# ---------------------------------------------------------------- results as JSON


def test_a_result_as_json_is_what_asdict_gives():
    view = ChunkView("docs/a.md", 3, 100, 180, "The refund w…", rank=2, size=80)
    result = CaseResult(
        gold_file="gold/a.yaml", id="refund", line=4, question="Refund window?",
        needles=["30 days"], span="The refund window is 30 days", verdict="split", rank=None,
        span_split=True, k=5, match="normalized", needle_lengths=[7], span_length=28,
        unit="chars", top=[view, dataclasses.replace(view, rank=1, size=None)],
        held=[Held("30 days", view)],
        cut=CutView("docs/a.md", 180, "refund w", "indow", view, None, overlap=None),
        closest=Closest("30 dayz", "30 days", 92.3, "docs/a.md", 3), missing=["x"],
        baseline={"verdict": "hit", "rank": 1, "span_split": False},
    )  # fmt: skip
    as_json = result.to_json()
    assert as_json == dataclasses.asdict(result)
    assert list(as_json) == [f.name for f in dataclasses.fields(CaseResult)]
    assert CaseResult.from_json(as_json) == result
    as_json["needles"].append("changed")
    as_json["top"][0]["preview"] = "changed"
    assert result.needles == ["30 days"] and result.top[0].preview == "The refund w…"
