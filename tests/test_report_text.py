"""The JSON report's text: the head indented, each case the one line its entry was written as."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_chunkrecall.render import json_report
from pytest_chunkrecall.run import entry

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
HEADS = st.dictionaries(st.text(max_size=6).filter(lambda key: key != "cases"), VALUES, max_size=5)
CASES = st.lists(st.dictionaries(st.text(max_size=6), VALUES, max_size=4), max_size=5)


def text_of(head: dict[str, Any], cases: list[dict[str, Any]]) -> str:
    texts = [entry.encode(case) for case in cases]
    return "".join(json_report.text({**head, "cases": []}, texts))


@given(HEADS, CASES)
def test_the_text_reads_as_the_report_with_its_cases_in_order(head, cases) -> None:
    assert json.loads(text_of(head, cases)) == {**head, "cases": cases}


@given(HEADS, CASES)
def test_each_case_is_one_line_and_the_rest_is_indented_as_json_dumps_does(head, cases) -> None:
    assert text_of(head, []) == json.dumps({**head, "cases": []}, indent=2) + "\n"
    if not cases:
        return
    listed = text_of(head, cases).split('\n  "cases": [\n', 1)[1].split("\n  ]", 1)[0]
    lines = listed.split(",\n")
    assert all(line.startswith("    {") and "\n" not in line for line in lines)
    assert [json.loads(line) for line in lines] == cases


def test_nan_is_refused() -> None:
    with pytest.raises(ValueError, match="not JSON compliant"):
        text_of({"mrr": float("nan")}, [])
