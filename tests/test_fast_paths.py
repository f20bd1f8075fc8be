"""The code made fast for large suites, against the simple definitions it replaced.

Benchmarks measure the speed (``python benchmarks/run.py``); these tests only
check that the fast code computes exactly what the plain version would.
"""

from __future__ import annotations

import dataclasses
import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from pytest_chunkrecall.matching import fold
from pytest_chunkrecall.results import CaseResult, ChunkView, Closest, CutView, Held

# ---------------------------------------------------------------- folding


def folded_by_hand(text: str) -> tuple[str, list[tuple[int, int]]]:
    """ASCII folding, character by character: each folded character and its original range."""
    chars, ranges = [], []
    for m in re.finditer(r"\s+|\S", text):
        chars.append(" " if m.group().isspace() else m.group().lower())
        ranges.append((m.start(), m.end()))
    return "".join(chars), ranges


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="aB. \n\t\r\x0b\x0c", max_size=60))
@example("  a \n\n b\t")
def test_folding_ascii_maps_every_character_back_to_its_original_range(text):
    folded = fold(text)
    expected, ranges = folded_by_hand(text)
    assert folded.text == expected
    for position, (start, end) in enumerate(ranges):
        assert folded.original_start(position) == start
        assert folded.original_end(position + 1) == end


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
