"""JSON reports read back, case by case, into the fold of one run: a report, or the reports of
disjoint shards of one run."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..baseline.drift import setup_changes
from ..config.table import SETUP_KEYS
from ..errors import ChunkrecallError
from ..evaluation.gold_facts import GoldInfo
from ..evaluation.repeat import combined, worst
from ..evaluation.results import CaseResult
from ..files import read_json
from .entry import CaseEntry, dumps, evaluated, order_key
from .fold import REPORT_FORMAT, RunFold
from .report_shape import check_report
from .spool import Spool

KEY = "chunkrecall_report"


def read_report(path: Path) -> dict[str, Any]:
    """The JSON report at ``path``; raises :class:`ChunkrecallError` unless it is one."""
    data = read_json(
        path,
        what=str(path),
        kind="a chunkrecall report",
        missing=f"{path} does not exist; give a file written by --chunkrecall-report",
        advice="give a file written by --chunkrecall-report",
    )
    return check_report(data, name=str(path))


@dataclass(frozen=True)
class Shard:
    """What a report says beside its cases: the options it was run with, each gold file's facts,
    and the cases that ran without an entry (their worker crashed)."""

    name: str
    sweep_spec: str | None
    setup_args: list[str]
    gold_info: dict[str, GoldInfo]
    crashed: list[str]

    def options(self) -> str:
        if self.sweep_spec is not None:
            return repr(self.sweep_spec)
        return " ".join(self.setup_args) or "none"


def shard_of(data: Mapping[str, Any], *, name: str) -> Shard:
    """What a report (read by :func:`read_report`) says beside its cases."""
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
    ids = {case["nodeid"] for case in data["cases"]}
    sweep = data.get("sweep")
    return Shard(
        name=name,
        sweep_spec=sweep.get("spec") if isinstance(sweep, dict) else None,
        setup_args=list(data.get("setup_args") or []),
        gold_info=gold_info,
        crashed=[nodeid for nodeid in data.get("unevaluated") or [] if nodeid not in ids],
    )


def gather(
    reports: Sequence[tuple[str, Mapping[str, Any]]],
    *,
    fold: Callable[[Shard], RunFold],
    each: Callable[[CaseEntry], CaseEntry] = lambda entry: entry,
) -> tuple[RunFold, Spool]:
    """The fold and the spool of the reports (``(name, report)`` each) of disjoint shards of one
    run, each case entry as ``each`` makes it; ``fold`` makes the fold, from the first shard.

    Raises :class:`ChunkrecallError` when they are not shards of one run: different report
    formats, a case in two shards, a gold file evaluated with two setups, different sweeps
    or options.
    """
    versions = {name: data[KEY] for name, data in reports}
    if len(set(map(repr, versions.values()))) > 1:
        shown = ", ".join(f"{name} has format {v!r}" for name, v in versions.items())
        raise ChunkrecallError(
            f"the reports come from different pytest-chunkrecall versions ({shown}); "
            "run every shard with the same version"
        )
    shards = [shard_of(data, name=name) for name, data in reports]
    first = shards[0]
    folded, spool = fold(first), Spool()
    owner: dict[str, str] = {}
    gold_info: dict[str, tuple[str, GoldInfo]] = {}
    for shard, (_, data) in zip(shards, reports, strict=True):
        if shard.sweep_spec != first.sweep_spec or shard.setup_args != first.setup_args:
            what = "sweep" if shard.sweep_spec != first.sweep_spec else "setup options"
            raise ChunkrecallError(
                f"{first.name} and {shard.name} were run with different {what} "
                f"({first.options()} and {shard.options()}); shards of one run share them"
            )
        for path, info in shard.gold_info.items():
            if path in gold_info:
                _same_setup(path, gold_info[path], (shard.name, info))
            else:
                gold_info[path] = (shard.name, info)
                folded.add_gold_info(path, info)
        for case in data["cases"]:
            nodeid = case["nodeid"]
            if nodeid in owner:
                raise ChunkrecallError(
                    f"{nodeid} is in both {owner[nodeid]} and {shard.name}: shards "
                    "must not overlap (give every job its own gold files or its own slice)"
                )
            owner[nodeid] = shard.name
            entry = each(case)
            folded.add(entry)
            spool.add(nodeid, order_key(entry), dumps(entry))
    for shard in shards:
        for nodeid in shard.crashed:
            folded.add_crashed(nodeid)
    return folded, spool


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


def repeats(reports: Sequence[tuple[str, Mapping[str, Any]]]) -> tuple[str, dict[str, Any]]:
    """The reports of one run repeated (each case in each report, e.g. under different
    ``PYTHONHASHSEED``) as one report whose cases combine their repeats.

    Each case's result is the worst of its repeats, with ``unstable`` and ``ranks_seen``
    (see :mod:`..evaluation.repeat`), and the entry, outcome included, of the report that
    gave it; a case one report could not evaluate is that report's entry. Raises
    :class:`ChunkrecallError` when the reports do not hold the same cases under the same
    setups, or the same options.
    """
    (first_name, first), rest = reports[0], reports[1:]
    shards = [shard_of(data, name=name) for name, data in reports]
    for shard in shards[1:]:
        if shard.sweep_spec != shards[0].sweep_spec or shard.setup_args != shards[0].setup_args:
            raise ChunkrecallError(
                f"{first_name} and {shard.name} were run with different options "
                f"({shards[0].options()} and {shard.options()}); repeats of a run share them"
            )
        for path, info in shard.gold_info.items():
            if path in shards[0].gold_info:
                _same_setup(path, (first_name, shards[0].gold_info[path]), (shard.name, info))
    by_case: dict[str, list[CaseEntry]] = {case["nodeid"]: [case] for case in first["cases"]}
    for name, data in rest:
        ids = {case["nodeid"] for case in data["cases"]}
        for nodeid in sorted(set(by_case) ^ ids)[:1]:
            where, lacks = (name, first_name) if nodeid in ids else (first_name, name)
            raise ChunkrecallError(
                f"{nodeid} is in {where} and not in {lacks}: repeats of a run hold the same "
                "cases (select the same tests in each)"
            )
        for case in data["cases"]:
            by_case[case["nodeid"]].append(case)
    cases = [_combined(entries) for entries in by_case.values()]
    return " + ".join(name for name, _ in reports), {**first, "cases": cases}


def _combined(entries: Sequence[CaseEntry]) -> CaseEntry:
    """One case's entry from its entries in each repeated report."""
    unevaluated = [entry for entry in entries if entry["verdict"] is None]
    if unevaluated:
        return unevaluated[0]
    results = [CaseResult.from_json(entry) for entry in entries]
    chosen = entries[worst(results)]
    return evaluated(
        chosen["nodeid"],
        combined(results),
        xfail=chosen["xfail"],
        outcome=chosen["outcome"],
        sweep=chosen.get("sweep"),
    )
