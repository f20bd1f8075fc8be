"""The run's options, read from the command line and the ini file and checked once, up front."""

from __future__ import annotations

import glob
import numbers
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from ..baseline import saved as baseline
from ..baseline.policy import GateSettings
from ..baseline.saved import Baseline
from ..config.resolve import resolve
from ..config.settings import GOLD_KEYS, Settings
from ..config.table import (
    BY_NAME,
    DEFAULT_BATCH_SIZE,
    DEFAULT_DEPTH,
    Policy,
    candidates_problem,
    resolved_k,
)
from ..corpus import corpus_roots
from ..discovery import gold_pattern_problem
from ..errors import USER_FAULTS, ChunkrecallError, raised, shown
from ..evaluation.suite import Component
from ..files import not_regular, real_target
from ..guard import (
    NORECURSE,
    Holds,
    OutputPath,
    Protected,
    Rule,
    check,
    lock_problem,
    quoted,
    survey,
)
from ..run import sweep
from .ini import ini_given, ini_setting, warn_at_ini


@dataclass(frozen=True)
class BaselineSetup:
    """Where the baseline is and what this run does with it."""

    path: Path | None = None
    name: str = ""
    update: bool = False
    loaded: Baseline | None = None  # what this run compares with (or, when updating, merges into)
    missing: bool = False
    gates: GateSettings = field(default_factory=GateSettings)


@dataclass(frozen=True)
class Options:
    """Everything the command line and the ini file say, validated."""

    ini: Settings = field(default_factory=Settings)
    loader: Component | None = None
    reference_loader: Component | None = None
    length: Component | None = None
    k_override: int | None = None
    sweep_spec: str | None = None
    sweep: list[dict[str, Any]] | None = None
    gold_files: set[Path] | None = None  # None: the default, YAML inside a folder named gold
    baseline: BaselineSetup = field(default_factory=BaselineSetup)
    report: str | None = None
    markdown: str | None = None
    html: str | None = None
    depth: int = DEFAULT_DEPTH
    corpus_roots: tuple[Path, ...] = ()  # where corpus files may lie (the rootdir first)
    batch_size: int = DEFAULT_BATCH_SIZE
    concurrency: int = 1
    xdist_group: bool = True  # under xdist's --dist load, a gold file's cases on one worker
    repeat: int = 1  # how many times each question is asked
    unstable: Policy = "strict"

    @property
    def shows_every_holder(self) -> bool:
        """Whether an output lists every chunk that holds a hit's span: the JSON report
        (what ``export trec`` reads) and the HTML page do; the terminal never does."""
        return self.report is not None or self.html is not None


OPTIONS = pytest.StashKey[Options]()


def read(config: pytest.Config) -> Options:
    """Read and check every chunkrecall option; raises ``pytest.UsageError`` naming the bad one."""
    k = config.getoption("chunkrecall_k")
    problem = None if k is None else BY_NAME["k"].check(k)[1]
    if problem:
        raise pytest.UsageError(f"--chunkrecall-k {problem}")
    spec = config.getoption("chunkrecall_sweep")
    try:
        settings = sweep.parse(spec) if spec is not None else None
    except ValueError as exc:
        raise pytest.UsageError(f"--chunkrecall-sweep {spec!r}: {exc}") from None
    gold_files = _gold_files(config)
    # Surveyed where the run's files are written: an xdist worker writes none of them.
    protected = Protected(config.rootpath)
    if not hasattr(config, "workerinput") and _writes_files(config):
        protected = _protected(config, gold_files)
        _step_summary(config, protected)
    setup = _baseline_setup(config, protected)
    force = bool(config.getoption("chunkrecall_force"))
    report = _output(config, "--chunkrecall-report", protected, force=force, holds="report")
    markdown = _output(config, "--chunkrecall-markdown", protected, force=force, holds="markdown")
    html = _output(
        config, "--chunkrecall-html", protected, force=force, holds="html", ini="chunkrecall_html"
    )
    _one_file_each(config, setup, report=report, markdown=markdown, html=html)
    ini = _ini_settings(config)
    _check_candidates(ini, k)
    return Options(
        ini=ini,
        loader=_function(config, "loader", what="loader"),
        reference_loader=_function(config, "reference_loader", what="reference loader"),
        length=_length(config),
        k_override=k,
        sweep_spec=spec,
        sweep=settings,
        gold_files=gold_files,
        baseline=setup,
        report=report,
        markdown=markdown,
        html=html,
        depth=ini_setting(config, "depth"),
        corpus_roots=corpus_roots(config.rootpath, list(ini_given(config, "corpus_roots") or ())),
        batch_size=ini_setting(config, "batch_size"),
        concurrency=ini_setting(config, "concurrency"),
        xdist_group=ini_setting(config, "xdist_group"),
        repeat=ini_setting(config, "repeat"),
        unstable=ini_setting(config, "unstable"),
    )


def _check_candidates(ini: Settings, k_override: int | None) -> None:
    """A reranker picks k of the candidates: fewer candidates than k is a usage error."""
    if ini.reranker is None and ini.candidates is None:
        return
    candidates = ini.candidates or BY_NAME["candidates"].default
    given = "--chunkrecall-k" if k_override else "chunkrecall_k" if ini.k else "the default k"
    problem = candidates_problem(
        candidates, resolved_k(k_override, ini.k), k_from=given, named="chunkrecall_candidates"
    )
    if problem is not None:
        named = "chunkrecall_candidates" if ini.candidates else "the default candidates"
        raise pytest.UsageError(f"ini option {named} ({candidates}) {problem}")


def _function(config: pytest.Config, key: str, *, what: str) -> Component | None:
    """The function an ini option names as ``module:attr``, imported once for the whole run."""
    reference = ini_given(config, key)
    if reference is None:
        return None
    try:
        return Component.of(reference, resolve(reference, what=what, where=None))
    except ChunkrecallError as exc:
        raise pytest.UsageError(f"ini option chunkrecall_{key}: {exc}") from None


def _length(config: pytest.Config) -> Component | None:
    """The user's length function, checked on a probe text and guarded for every later call."""
    found = _function(config, "length", what="length function")
    if found is None:
        return None
    user, name = found.obj, found.name

    def length(text: str) -> int:
        try:
            value = user(text)
        except USER_FAULTS as exc:
            raise ChunkrecallError(
                f"length function {name} raised {raised(exc)}",
                where="ini option chunkrecall_length",
            ) from None
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
            raise ChunkrecallError(
                f"length function {name} returned {shown(value)}; it must return a whole number, 0 or more",
                where="ini option chunkrecall_length",
            )
        return int(value)

    try:
        length("A probe of two sentences. The second one.")
    except ChunkrecallError as exc:
        raise pytest.UsageError(str(exc)) from None
    return Component.of(name, length)


def _output(
    config: pytest.Config,
    option: str,
    protected: Protected,
    *,
    force: bool,
    holds: Holds,
    ini: str | None = None,
) -> str | None:
    """A file the run will write, checked by the output guard now rather than lost at the end.

    The command line's path is relative to the current folder; an ini option's (``ini``)
    to the rootdir.
    """
    value = config.getoption(option.lstrip("-").replace("-", "_"))
    if value == "":  # given, but empty (an emptied variable in a CI script): no silent skip
        raise pytest.UsageError(f"{option} is empty: give the path of the file to write")
    base = config.invocation_params.dir
    if not value and ini is not None:
        value = ini_given(config, ini.removeprefix("chunkrecall_"))
        base = config.rootpath
        if value:
            value = str(base / value)
    if not value:
        return None
    output = OutputPath(base / value, f"{option} {quoted(value)}", holds)
    try:
        check(output, protected, force=force, force_option="--chunkrecall-force")
    except ChunkrecallError as exc:
        raise pytest.UsageError(str(exc)) from None
    return str(value)


def _protected(config: pytest.Config, gold_files: set[Path] | None) -> Protected:
    """What no output of this run may replace: the project's files and the other outputs."""
    rootdir, here = config.rootpath, config.invocation_params.dir
    named = [here / argument.split("::", 1)[0] for argument in config.args]
    known = {path: "a gold file" for path in gold_files or ()}
    for path in named:
        if path.suffix in (".yaml", ".yml") and path.is_file():
            known[path] = "a gold file named on the command line"
    rules = [
        Rule(pattern, rootdir, f"a corpus document (ini option chunkrecall_corpus: {pattern!r})")
        for pattern in ini_given(config, "corpus") or ()
    ]
    rules += [
        Rule(
            pattern,
            rootdir,
            f"where gold files are collected (ini option chunkrecall_gold: {pattern!r})",
        )
        for pattern in ini_given(config, "gold") or ()
    ]
    files = {} if config.inipath is None else {config.inipath: "it is the ini file of this run"}
    return survey(
        rootdir,
        writer="the run",
        search=named if gold_files is None else (),
        gold_files=known.items(),
        rules=rules,
        files=files,
        taken=_other_outputs(config),
        norecurse=config.getini("norecursedirs") or NORECURSE,
    )


def _writes_files(config: pytest.Config) -> bool:
    """Whether this run writes (or appends to) any file: only then is the project surveyed."""
    options = ("chunkrecall_report", "chunkrecall_markdown", "chunkrecall_html")
    return (
        any(config.getoption(option) for option in options)
        or bool(config.getoption("chunkrecall_update_baseline"))
        or bool(ini_given(config, "html"))
        or bool(os.environ.get("GITHUB_STEP_SUMMARY"))
    )


def _other_outputs(config: pytest.Config) -> dict[Path, str]:
    """The files other plugins write in this run: no output of this one may be one of them."""
    here = config.invocation_params.dir
    found = {
        "--junitxml": getattr(config.option, "xmlpath", None),
        "pytest-html's --html": getattr(config.option, "htmlpath", None),
        "--json-report-file": getattr(config.option, "json_report_file", None)
        if getattr(config.option, "json_report", False)
        else None,
    }
    return {
        here / os.path.expanduser(value): f"the file of {option} in this run"
        for option, value in found.items()
        if value
    }


def _step_summary(config: pytest.Config, protected: Protected) -> None:
    """``$GITHUB_STEP_SUMMARY``, appended to at the end: never a project file."""
    value = os.environ.get("GITHUB_STEP_SUMMARY")
    if not value:
        return
    output = OutputPath(Path(value), f"GITHUB_STEP_SUMMARY {quoted(value)}", "summary")
    try:
        check(output, protected, force=False, force_option="--chunkrecall-force")
    except ChunkrecallError as exc:
        raise pytest.UsageError(str(exc)) from None


def _one_file_each(
    config: pytest.Config,
    setup: BaselineSetup,
    *,
    report: str | None,
    markdown: str | None,
    html: str | None,
) -> None:
    """Refuse two of the run's files on one path: the last written would replace the others."""
    base = config.invocation_params.dir
    named = [
        (f"--chunkrecall-report {report}", report),
        (f"--chunkrecall-markdown {markdown}", markdown),
        (f"--chunkrecall-html {html}", html),
    ]
    files = [(what, real_target(base / value)) for what, value in named if value]
    if setup.path is not None:
        files.insert(0, (f"the baseline {setup.name}", real_target(setup.path)))
    seen: dict[Path, str] = {}
    for what, target in files:
        if target in seen:
            raise pytest.UsageError(
                f"{seen[target]} and {what} are one file; give each its own path "
                "(nothing was written)"
            )
        seen[target] = what


def _baseline_setup(config: pytest.Config, protected: Protected) -> BaselineSetup:
    """Where the baseline is, read now so that a bad one stops the run before any test."""
    gates = _gate_settings(config)
    update = bool(config.getoption("chunkrecall_update_baseline"))
    option = config.getoption("chunkrecall_baseline")
    ini = ini_given(config, "baseline")
    if option:
        path, name = config.invocation_params.dir / option, option
    elif ini:
        path, name = config.rootpath / ini, ini
    elif update:
        raise pytest.UsageError(
            "--chunkrecall-update-baseline needs to know where to write: add "
            "--chunkrecall-baseline PATH, or set the ini option chunkrecall_baseline"
        )
    else:
        return BaselineSetup(gates=gates)
    if update:
        _check_baseline(path, name, protected)
    else:
        problem = not_regular(path)
        if problem:
            raise pytest.UsageError(f"cannot read baseline {quoted(name)}: {problem}")
    if not path.exists():
        return BaselineSetup(path, name, update, None, not update, gates)
    try:
        loaded = baseline.load(path, name=name)
    except ChunkrecallError as exc:
        if update:
            raise pytest.UsageError(
                f"{exc}\n(the file was left as it is; nothing was written)"
            ) from None
        raise pytest.UsageError(str(exc)) from None
    return BaselineSetup(path, name, update, loaded, False, gates)


def _check_baseline(path: Path, name: str, protected: Protected) -> None:
    """The baseline an updating run writes: through the output guard, its folder, its lock."""
    output = OutputPath(path, f"cannot write baseline {quoted(name)}", "baseline")
    try:
        check(output, protected, force=False, force_option="--chunkrecall-force")
    except ChunkrecallError as exc:
        raise pytest.UsageError(str(exc)) from None
    problem = lock_problem(path)
    if not path.parent.is_dir():
        problem = f"the folder {quoted(path.parent)} does not exist; create it first"
    if problem:
        raise pytest.UsageError(f"cannot write baseline {quoted(name)}: {problem}")


def _gate_settings(config: pytest.Config) -> GateSettings:
    """The gates' ini options; a bad one stops the run before any test, naming it."""
    return GateSettings(
        gate=ini_setting(config, "gate"),
        alpha=ini_setting(config, "alpha"),
        min_effect=ini_setting(config, "min_effect"),
        max_drop=ini_setting(config, "max_drop"),
        min_hit_rate=ini_setting(config, "min_hit_rate"),
        max_context_growth=ini_setting(config, "max_context_growth"),
    )


def _ini_settings(config: pytest.Config) -> Settings:
    """What the ini file sets of the settings a gold file may set too, each checked."""
    values: dict[str, Any] = {}
    origins: dict[str, str] = {}
    for key in GOLD_KEYS:
        value = ini_given(config, key)
        if value is not None:
            values[key] = value
            origins[key] = f"ini option chunkrecall_{key}"
    return Settings(**values, corpus_base=config.rootpath, origins=origins)


def _gold_files(config: pytest.Config) -> set[Path] | None:
    patterns = ini_given(config, "gold")
    if not patterns:
        return None
    found: set[Path] = set()
    for pattern in patterns:
        matches = [
            Path(match).resolve()
            for match in glob.glob(str(config.rootpath / pattern), recursive=True)
        ]
        problem = gold_pattern_problem(pattern, matches, config.rootpath)
        if problem is not None:
            warn_at_ini(config, pytest.PytestConfigWarning(problem), "chunkrecall_gold")
        found.update(matches)
    return found
