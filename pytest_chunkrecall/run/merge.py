"""JSON reports read back into run records, and the reports of disjoint shards merged into one."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..baseline.drift import setup_changes
from ..errors import ChunkrecallError
from ..evaluation.gold_facts import GoldInfo
from ..files import read_json
from .record import REPORT_FORMAT, SETUP_KEYS, RunRecord

KEY = "chunkrecall_report"
_CASE_KEYS = ("nodeid", "gold_file", "id", "line", "outcome")


def read_report(path: Path) -> dict[str, Any]:
    """The JSON report at ``path``; raises :class:`ChunkrecallError` unless it is one."""
    data = read_json(
        path,
        what=str(path),
        kind="a chunkrecall report",
        missing=f"{path} does not exist; give a file written by --chunkrecall-report",
        advice="give a file written by --chunkrecall-report",
    )
    if not isinstance(data, dict) or KEY not in data:
        raise ChunkrecallError(
            f"{path} is not a chunkrecall report (it has no {KEY!r} key); give files written "
            "by --chunkrecall-report"
        )
    cases = data.get("cases")
    if not isinstance(cases, list) or not all(
        isinstance(case, dict) and all(key in case for key in _CASE_KEYS) for case in cases
    ):
        raise ChunkrecallError(
            f"{path} is damaged: 'cases' must be a list of case entries with "
            f"{', '.join(_CASE_KEYS)}; write it again with --chunkrecall-report"
        )
    return data


def record_of(data: Mapping[str, Any], *, name: str) -> RunRecord:
    """The run record a report (read by :func:`read_report`) was written from."""
    version = data[KEY]
    if version != REPORT_FORMAT:
        newer = isinstance(version, int) and version > REPORT_FORMAT
        raise ChunkrecallError(
            f"{name} has report format {version!r}, and this pytest-chunkrecall reads format "
            f"{REPORT_FORMAT}" + ("; upgrade pytest-chunkrecall" if newer else "")
        )
    gold_info: dict[str, GoldInfo] = {}
    for entry in data.get("gold_files") or []:
        info = {k: v for k, v in entry.items() if k not in ("path", "spans", "totals")}
        if "error" in info:
            gold_info[entry["path"]] = {"error": info["error"]}
        elif info.get("chunks") is not None:  # a gold file none of whose cases ran has no facts
            gold_info[entry["path"]] = info  # type: ignore[assignment]
    cases = [dict(case) for case in data["cases"]]
    ids = {case["nodeid"] for case in cases}
    sweep = data.get("sweep")
    return RunRecord(
        cases=cases,
        gold_info=gold_info,
        crashed=[nodeid for nodeid in data.get("unevaluated") or [] if nodeid not in ids],
        sweep_spec=sweep.get("spec") if isinstance(sweep, dict) else None,
        setup_args=list(data.get("setup_args") or []),
    )


def merge(reports: Sequence[tuple[str, Mapping[str, Any]]]) -> RunRecord:
    """One record of the reports (``(name, report)`` each) of disjoint shards of one run.

    Raises :class:`ChunkrecallError` when they are not: different report formats, a case
    in two shards, a gold file evaluated with two setups, different sweeps or options.
    """
    versions = {name: data[KEY] for name, data in reports}
    if len(set(map(repr, versions.values()))) > 1:
        shown = ", ".join(f"{name} has format {v!r}" for name, v in versions.items())
        raise ChunkrecallError(
            f"the reports come from different pytest-chunkrecall versions ({shown}); "
            "run every shard with the same version"
        )
    records = [(name, record_of(data, name=name)) for name, data in reports]
    first_name, first = records[0]
    owner: dict[str, str] = {}
    cases: list[Mapping[str, Any]] = []
    gold_info: dict[str, tuple[str, GoldInfo]] = {}
    crashed: list[str] = []
    for name, record in records:
        if record.sweep_spec != first.sweep_spec or record.setup_args != first.setup_args:
            what = "sweep" if record.sweep_spec != first.sweep_spec else "setup options"
            raise ChunkrecallError(
                f"{first_name} and {name} were run with different {what} "
                f"({_options(first)} and {_options(record)}); shards of one run share them"
            )
        for case in record.cases:
            if case["nodeid"] in owner:
                raise ChunkrecallError(
                    f"{case['nodeid']} is in both {owner[case['nodeid']]} and {name}: shards "
                    "must not overlap (give every job its own gold files or its own slice)"
                )
            owner[case["nodeid"]] = name
            cases.append(case)
        crashed += record.crashed
        for path, info in record.gold_info.items():
            if path not in gold_info:
                gold_info[path] = (name, info)
                continue
            _same_setup(path, gold_info[path], (name, info))
    return RunRecord(
        cases=cases,
        gold_info={path: info for path, (_, info) in gold_info.items()},
        crashed=[nodeid for nodeid in crashed if nodeid not in owner],
        sweep_spec=first.sweep_spec,
        setup_args=first.setup_args,
    )


def _same_setup(path: str, seen: tuple[str, GoldInfo], other: tuple[str, GoldInfo]) -> None:
    (first, a), (second, b) = seen, other
    if "error" in a or "error" in b:
        return  # a configuration that failed in one shard has no setup to disagree with
    changes = setup_changes(
        {key: a.get(key) for key in (*SETUP_KEYS, "fingerprints")},
        {key: b.get(key) for key in (*SETUP_KEYS, "fingerprints")},
    )
    if changes:
        raise ChunkrecallError(
            f"{path} was evaluated with two setups: {first} and {second} differ in "
            f"{'; '.join(changes)}; run every shard with the same configuration and corpus"
        )


def _options(record: RunRecord) -> str:
    if record.sweep_spec is not None:
        return repr(record.sweep_spec)
    return " ".join(record.setup_args) or "none"
