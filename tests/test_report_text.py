"""The JSON report's text: what json.dumps would write, joined in batches, for any size of report."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_chunkrecall.render import json_report

VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=20,
)


@given(st.dictionaries(st.text(max_size=6), VALUES, max_size=5))
def test_the_text_is_what_json_dumps_gives(report):
    assert json_report.dumps(report) == json.dumps(report, indent=2, allow_nan=False) + "\n"


def test_a_report_of_many_batches_is_whole_and_in_order():
    cases = [
        {"nodeid": f"gold/a.yaml::c{n}", "top": [{"rank": r} for r in range(5)]}
        for n in range(20_000)
    ]
    report = {"chunkrecall_report": 1, "cases": cases}
    text = json_report.dumps(report)
    pieces = sum(1 for _ in json.JSONEncoder(indent=2).iterencode(report))
    assert pieces > 2 * json_report._BATCH  # joined in several batches
    assert text == json.dumps(report, indent=2) + "\n"
    assert json.loads(text) == report


def test_nan_is_refused():
    with pytest.raises(ValueError, match="not JSON compliant"):
        json_report.dumps({"mrr": float("nan")})
