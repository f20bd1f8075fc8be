"""Each sweep row against the configured setting, on the same cases: the change and its evidence."""

from __future__ import annotations

from typing import Any

from pytest_chunkrecall.render.terminal import sweep_lines
from pytest_chunkrecall.run.sweep import rows

SETTINGS: list[dict[str, Any]] = [{"overlap": 8}, {"overlap": 16}, {"overlap": 32}]


def contribution(hit: bool) -> dict[str, Any]:
    return {"hit": hit, "span_split": not hit, "chunking": "c", "chunks": 10,
            "chunk_length": 100, "corpus_length": 100}  # fmt: skip


def cases(configured: list[bool], *settings: list[bool | None]) -> list[dict[str, Any]]:
    """One case per position; ``None`` in a setting's list: the setting failed for that case."""
    found = []
    for number, was in enumerate(configured):
        sweep = [{**contribution(was), "configured": {"overlap": 0}}]
        for hits in settings:
            now = hits[number]
            sweep.append({"error": "boom"} if now is None else contribution(now))
        found.append({"gold_file": "gold/a.yaml", "id": f"c{number}", "sweep": sweep})
    return found


def test_rows_carry_mcnemar_and_holm_against_the_configured_setting() -> None:
    configured = [True] * 10 + [False] * 10
    six_better = configured[:10] + [True] * 6 + [False] * 4  # b=0, c=6: p = 2/64
    one_each = [False] + configured[1:10] + [True] + [False] * 9  # b=1, c=1: p = 1
    eight_better = configured[:10] + [True] * 8 + [False] * 2  # b=0, c=8: p = 2/256
    found = rows(SETTINGS, cases(configured, six_better, one_each, eight_better))
    evidence = [row.evidence for row in found[1:]]
    assert found[0].evidence is None
    assert [(e.regressions, e.improvements) for e in evidence] == [(0, 6), (1, 1), (0, 8)]
    assert [e.p_value for e in evidence] == [2 / 64, 1.0, 2 / 256]
    # Holm: 3 x 2/256 = 0.0234; then max(that, 2 x 2/64) = 0.0625; then 1
    assert [e.p_holm for e in evidence] == [0.0625, 1.0, 3 * 2 / 256]
    assert [e.significant for e in evidence] == [False, False, True]
    data = [row.to_json(found[0]) for row in found]
    assert data[3]["p_holm"] == 0.0234375 and data[3]["significant"] is True
    table = sweep_lines("overlap=8,16,32", data)
    # the last column, the context to the answer: these contributions record none
    assert table[-2].endswith("+40.0 pts   0.023 *          -")
    assert table[-1] == (
        "  * differs from the configured setting at 0.05 (exact two-sided McNemar on the same "
        "cases, Holm-adjusted across 3 settings)"
    )


def test_a_row_is_paired_only_on_the_cases_both_settings_evaluated() -> None:
    configured = [True, True, False, False]
    failing = [None, False, True, None]  # two cases could not be evaluated at this setting
    found = rows(SETTINGS[:1], cases(configured, failing))
    evidence = found[1].evidence
    assert evidence is not None
    assert (evidence.cases, evidence.regressions, evidence.improvements) == (2, 1, 1)
    assert evidence.delta_points == 0.0
