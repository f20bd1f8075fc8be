"""What pytest-chunkrecall itself costs, measured side by side in one run, printed as a table.

    python benchmarks/run.py            # the full run (several minutes)
    python benchmarks/run.py --quick    # smaller sizes, fewer repeats: does it all still work?
    python benchmarks/run.py --only common --common-cases 1000,3000   # one row, other sizes

The rows on how the cost grows with needle frequency, slow retrievers, known
misses and batching are in ``scale.py``, those on xdist and LlamaIndex in ``workers.py``,
the geometry row's measure in ``geometry.py`` and pytest's own failure summary
in ``failures.py``.

Every corpus and gold file is generated here, deterministically, into a
temporary folder; only the real-data row reads ``../shared/data/chunking_evaluation``
(next to the repository), and is skipped without it. Every pytest run is a fresh
process with plugin autoloading off, so that only pytest, this plugin and (for
``-n 2``) xdist are loaded: other plugins installed beside it would add the same
start-up time to both sides of a ratio. Times are wall-clock medians; ratios are
taken between runs made alternately in this one invocation, so that the
machine's noise falls on both sides.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import functools
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the LlamaIndex row calls the core of this checkout in-process

import chunking_evaluation  # noqa: E402
import failures  # noqa: E402
import scale  # noqa: E402
import synthetic  # noqa: E402
import workers as parallel  # noqa: E402
import yaml  # noqa: E402
from measure import (  # noqa: E402
    HAS_XDIST,
    MB,
    PLUGIN,
    QUICK,
    XDIST,
    Row,
    Run,
    Sizes,
    alternate,
    compiled,
    median,
    median_cpu,
    pytest_run,
)

GEOMETRY = Path(__file__).with_name("geometry.py")

# ------------------------------------------------------------------ the measures


def overhead(work: Path, sizes: Sizes) -> Row:
    """The plugin against a hand-written parametrized test: same chunker, retriever and check."""
    project = synthetic.overhead_project(
        work / "overhead", sizes.overhead_cases, sizes.overhead_corpus
    )
    env = compiled(work / "overhead")  # the plugin's bytecode kept, as an installed wheel has it

    def through_plugin() -> Run:
        return pytest_run(project.root, *PLUGIN, "gold", env=env)

    def written_by_hand() -> Run:
        return pytest_run(project.root, "test_handwritten.py", env=env)

    through_plugin(), written_by_hand()  # untimed: each side's modules compiled once
    plugin, by_hand = alternate(sizes.repeats, through_plugin, written_by_hand)
    ratio = median(plugin) / median(by_hand)
    cpu = median_cpu(plugin) / median_cpu(by_hand)
    return Row(
        "overhead",
        f"{sizes.overhead_cases:,} cases, {project.corpus_chars / MB:.1f} MB corpus, "
        f"median of {sizes.repeats}",
        f"plugin {median(plugin):.2f} s / by hand {median(by_hand):.2f} s = **{ratio:.2f}x** "
        f"(CPU time {cpu:.2f}x)",
        "<= 1.0x",
        ratio <= 1.0,
    )


def build_once(work: Path, sizes: Sizes) -> Row:
    """How often the chunker and the retriever factory run for gold files sharing one setup."""
    project = synthetic.write_project(
        work / "build",
        cases=sizes.build_files * 20,
        corpus_chars=MB // 2,
        documents_count=10,
        chunker="keywords:counted_chunker",
        retriever="keywords:counted_index",
        gold_files=sizes.build_files,
    )
    counts, once = [], True
    for workers in ("0", "2") if HAS_XDIST else ("0",):
        calls = work / f"calls-{workers}"
        workers_option = (*XDIST, "-n", workers) if HAS_XDIST else ()
        pytest_run(
            project.root,
            *PLUGIN,
            *workers_option,
            "gold",
            env={"CHUNKRECALL_BENCH_CALLS": str(calls)},
        )
        found = [json.loads(p.read_text()) for p in work.glob(f"calls-{workers}.*")]
        processes = [c for c in found if c["chunker"] or c["retriever"]]  # not xdist's controller
        chunkings = sum(c["chunker"] for c in processes) / project.documents
        factories = sum(c["retriever"] for c in processes)
        once = once and chunkings == factories == len(processes)
        counts.append(
            f"`-n {workers}`: corpus chunked {chunkings:g}x, factory called {factories}x, "
            f"in {len(processes)} process{'es' if len(processes) > 1 else ''}"
        )
    return Row(
        "build once",
        f"{sizes.build_files} gold files sharing one configuration, {project.documents} documents",
        "; ".join(counts),
        "once per configuration per process",
        once,
    )


SLEEPING_TESTS = """
import time
import pytest

@pytest.mark.parametrize("number", range({cases}))
def test_sleep(number):
    time.sleep(0.002)
"""


def xdist(work: Path, sizes: Sizes) -> list[Row]:
    """A slow retriever: serial against two workers, beside pytest alone and a slower retriever."""
    if not HAS_XDIST:
        return [Row("xdist", "pytest-xdist is not installed", "skipped")]
    fast, slow = (
        synthetic.write_project(
            work / f"xdist-{sleep}",
            cases=cases,
            corpus_chars=MB // 2,
            documents_count=10,
            retriever="keywords:index",
            retriever_args={"sleep": sleep},
        )
        for sleep, cases in ((0.002, sizes.xdist_cases), (0.01, sizes.xdist_cases // 2))
    )
    sleeping = fast.root / "test_sleep.py"
    sleeping.write_text(SLEEPING_TESTS.format(cases=sizes.xdist_cases), encoding="utf-8")
    runs: dict[str, list[Run]] = {}
    for _ in range(sizes.xdist_repeats):
        for what, project, target in (
            ("2 ms", fast.root, "gold"),
            ("pytest", fast.root, sleeping.name),
            ("10 ms", slow.root, "gold"),
        ):
            for workers in ("0", "2"):
                run = pytest_run(project, *PLUGIN, *XDIST, "-n", workers, target)
                runs.setdefault(f"{what} -n {workers}", []).append(run)

    def speedup(what: str) -> float:
        return median(runs[f"{what} -n 0"]) / median(runs[f"{what} -n 2"])

    def times(what: str) -> str:
        return f"`-n 0` {median(runs[f'{what} -n 0']):.2f} s / `-n 2` {median(runs[f'{what} -n 2']):.2f} s"

    repeats = f"median of {sizes.xdist_repeats}"
    return [
        Row(
            "xdist",
            f"{sizes.xdist_cases:,} cases, retriever sleeps 2 ms a query, {repeats}",
            f"{times('2 ms')} = **{speedup('2 ms'):.2f}x**; pytest alone, "
            f"{sizes.xdist_cases:,} tests that sleep 2 ms: {speedup('pytest'):.2f}x",
            ">= 1.7x",
            speedup("2 ms") >= 1.7,
        ),
        Row(
            "xdist",
            f"{sizes.xdist_cases // 2:,} cases, retriever sleeps 10 ms a query, {repeats}",
            f"{times('10 ms')} = **{speedup('10 ms'):.2f}x**",
        ),
    ]


def geometry(project: synthetic.Project, sizes: Sizes) -> Row:
    """Span analysis over the big corpus, each count in a fresh process: every span located."""
    folder = project.root / "geometry"
    folder.mkdir(exist_ok=True)
    header = {
        "corpus": "../docs/*.md",
        "chunker": "pytest_chunkrecall.chunkers:fixed_size",
        "chunker_args": {"size": 800, "overlap": 200},
        "retriever": "keywords:nothing",
        "k": 5,
        "match": "normalized",
    }
    # the warm-up's needle is a filler word: locating it builds the corpus's
    # index and warms nothing that a fact's span would find again
    first_word = (project.root / "docs" / "doc0000.md").read_text(encoding="utf-8").split()[0]
    warm = {**header, "cases": [{"id": "warm", "question": "?", "needle": first_word}]}
    (folder / "warm.yaml").write_text(yaml.safe_dump(warm, sort_keys=False), encoding="utf-8")
    measured = []
    for count in sizes.spans:
        cases = [
            {
                "id": f.id,
                "question": f.question,
                "needle": f.needle,
                "span": {"from": f.start, "to": f.needle},
            }
            for f in project.facts[:count]
        ]
        gold = folder / f"spans{count}.yaml"
        text = yaml.safe_dump({**header, "cases": cases}, sort_keys=False)
        gold.write_text(text, encoding="utf-8")
        measured.append(in_process_of_its_own(GEOMETRY, str(project.root), str(gold)))
    (small, large), (first, second) = sizes.spans, measured
    ratio = second["spans"] / first["spans"]
    return Row(
        "geometry scaling",
        f"{project.corpus_chars / MB:.1f} MB corpus, {first['chunks']:,} chunks, {small:,} vs "
        f"{large:,} spans, each count in a fresh process, every span located",
        f"reading, chunking and indexing the corpus {first['build']:.2f} s and "
        f"{second['build']:.2f} s; then {small:,} spans {first['spans']:.2f} s "
        f"({first['split']:,} cut), {large:,} spans {second['spans']:.2f} s "
        f"({second['split']:,} cut) = **{ratio:.1f}x**",
        f"~{large // small}x (linear) or less",
        ratio <= 1.2 * large / small,
    )


def in_process_of_its_own(script: Path, *args: str) -> dict[str, float]:
    """What ``script`` prints as JSON, run by this interpreter over this checkout."""
    environment = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    done = subprocess.run(
        [sys.executable, str(script), *args],
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(
            f"$ {script.name} {' '.join(args)} exited {done.returncode}:\n"
            f"{done.stdout[-2000:]}{done.stderr[-3000:]}"
        )
    found: dict[str, float] = json.loads(done.stdout.splitlines()[-1])
    return found


def memory(work: Path, project: synthetic.Project) -> Row:
    """Peak RSS of a whole run over the big corpus, against a tiny run and the same run by hand."""
    tiny = synthetic.write_project(
        work / "tiny", cases=1, corpus_chars=2000, documents_count=1, retriever="keywords:index"
    )
    floor = pytest_run(tiny.root, *PLUGIN, "gold")
    plugin = pytest_run(project.root, *PLUGIN, "gold")
    by_hand = pytest_run(project.root, "test_handwritten.py")
    ratio = (plugin.peak_mb - floor.peak_mb) * MB / project.corpus_chars
    own = (plugin.peak_mb - by_hand.peak_mb) * MB / project.corpus_chars
    return Row(
        "memory",
        f"{project.corpus_chars / MB:.1f} MB corpus, {len(project.facts):,} cases with spans, "
        f"run in {plugin.seconds:.1f} s",
        f"peak {plugin.peak_mb:.0f} MB = interpreter {floor.peak_mb:.0f} MB + **{ratio:.1f}x** "
        f"the corpus; by hand {by_hand.peak_mb:.0f} MB (plugin's own: {own:.1f}x the corpus)",
        "< 5x the corpus + interpreter",
        ratio < 5,
    )


def real_data(work: Path, quick: bool) -> list[Row]:
    """The built-ins on every corpus of Chroma's chunking-evaluation data, time per case."""
    data = chunking_evaluation.DATA
    if not (data / "questions_df.csv").is_file():
        return [Row("real data", f"no data at {data}", "skipped")]
    corpora = sorted(p.stem for p in (data / "corpora").glob("*.md"))
    chunkers = {"fixed_size": chunking_evaluation.CHUNKERS["fixed_size"]}
    groups = [tuple(corpora)] if quick else [(c,) for c in corpora]
    rows = []
    for group in groups:
        project = work / "real" / "-".join(group)
        project.mkdir(parents=True)
        chunking_evaluation.write_project(data, project, group, chunkers, 5)
        report = project / "report.json"
        run = pytest_run(project, *PLUGIN, "--chunkrecall-report", str(report), "gold")
        totals = json.loads(report.read_text(encoding="utf-8"))["totals"]
        chars = sum((data / "corpora" / f"{c}.md").stat().st_size for c in group)
        rows.append(
            Row(
                "real data",
                f"{', '.join(group)} ({chars / 1000:.0f} kB), fixed_size 800/200 + bm25, k 5",
                f"{totals['cases']} cases, hit-rate {totals['hit_rate']:.1%}, {run.seconds:.1f} s "
                f"= **{run.seconds / totals['cases'] * 1000:.1f} ms** a case",
            )
        )
    return rows


# ------------------------------------------------------------------ the table


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = f", load {os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else ""
    installed = []
    for name in ("pytest", "pytest-xdist", "PyYAML", "rapidfuzz", "wordllama", "llama-index-core"):
        with contextlib.suppress(metadata.PackageNotFoundError):
            installed.append(f"{name} {metadata.version(name)}")
    return (
        f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores ({cpu}{load}), "
        f"Python {platform.python_version()}, {', '.join(installed)}"
    )


def table(rows: list[Row]) -> str:
    met = {True: "yes", False: "**no**", None: ""}
    lines = ["| measure | setting | result | target | met |", "|---|---|---|---|---|"]
    lines += [
        f"| {r.measure} | {r.setting} | {r.result} | {r.target} | {met[r.met]} |" for r in rows
    ]
    return "\n".join(lines)


MEASURES = (
    "overhead",
    "report-overhead",
    "build",
    "xdist",
    "geometry",
    "memory",
    "real",
    "common",
    "misses",
    "hundred-thousand",
    "concurrency",
    "repeat",
    "known-misses",
    "batching",
    "scale-xdist",
    "llamaindex",
    "failures",
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes and fewer repeats")
    parser.add_argument(
        "--only", action="append", choices=MEASURES, help="run only this measure (repeatable)"
    )
    parser.add_argument(
        "--common-cases",
        metavar="SMALL,LARGE",
        help="the two case counts of the common-needle row (default: 1000,10000)",
    )
    options = parser.parse_args(argv)
    sizes = QUICK if options.quick else Sizes()
    if options.common_cases:
        small, _, large = options.common_cases.partition(",")
        if not (small.isdigit() and large.isdigit() and 0 < int(small) < int(large)):
            parser.error(
                f"--common-cases takes SMALL,LARGE, such as 1000,3000; not {small},{large}"
            )
        sizes = dataclasses.replace(sizes, common_cases=(int(small), int(large)))
    wanted = set(options.only or MEASURES)
    began = time.perf_counter()
    print(f"$ python benchmarks/run.py {' '.join(argv if argv is not None else sys.argv[1:])}")
    print(f"chunkrecall benchmarks{' (quick)' if options.quick else ''} on {machine()}", flush=True)
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="chunkrecall-bench-") as folder:
        work = Path(folder)

        @functools.cache
        def big() -> synthetic.Project:  # the corpus the geometry and memory rows share
            return synthetic.write_project(
                work / "big",
                cases=sizes.spans[1],
                corpus_chars=sizes.big_corpus,
                documents_count=200,
                retriever="keywords:index",
                match="normalized",
                spans=True,
            )

        steps: dict[str, Callable[[], list[Row]]] = {
            "overhead": lambda: [overhead(work, sizes)],
            "report-overhead": lambda: [scale.report_overhead(work, sizes)],
            "build": lambda: [build_once(work, sizes)],
            "xdist": lambda: xdist(work, sizes),
            "geometry": lambda: [geometry(big(), sizes)],
            "memory": lambda: [memory(work, big())],
            "real": lambda: real_data(work, options.quick),
            "common": lambda: scale.common(work, sizes),
            "misses": lambda: scale.misses(work, sizes),
            "hundred-thousand": lambda: scale.hundred_thousand(work, sizes),
            "concurrency": lambda: [scale.concurrency(work, sizes)],
            "repeat": lambda: [scale.repeat(work, sizes)],
            "known-misses": lambda: [scale.known_misses(work, sizes)],
            "batching": lambda: [scale.batching(work, sizes)],
            "scale-xdist": lambda: parallel.scale_xdist(work, sizes),
            "llamaindex": lambda: [parallel.llamaindex(work, sizes)],
            "failures": lambda: [failures.failures(work, sizes)],
        }
        for name in MEASURES:
            if name in wanted:
                started = time.perf_counter()
                rows += steps[name]()
                print(f"  {name}: done in {time.perf_counter() - started:.0f} s", flush=True)
    print()
    print(table(rows))
    minutes, seconds = divmod(round(time.perf_counter() - began), 60)
    load = (
        f", load average at the end {os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else ""
    )
    print(f"\n({minutes} min {seconds} s{load})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
