"""The rows on how the plugin's cost grows: common needles, slow retrievers, known misses,
batched retrievers.

- ``common``: a verdict's cost must not grow with how often its needle occurs.
  A 20 MB corpus of random words, 1,000 and then 10,000 cases whose needle is a
  word that occurs about 1,800 times (``common_needles.py``), beside the
  hand-written test of the same 10,000 cases (``project/test_handwritten.py``),
  for time and for peak memory.
- ``concurrency``: a retriever that waits 20 ms a call, run with one call in
  flight (``chunkrecall_concurrency = 1``) and with eight.
- ``repeat``: the same gold suite with each question asked once and three times
  (``chunkrecall_repeat = 3``).
- ``known-misses``: the ``repeat`` row's suite with half its cases known misses in the
  baseline, beside a hand-written test that makes the same misses expected failures.
- ``batching``: wordllama over the 472 questions of Chroma's chunking-evaluation
  data, by a retriever that answers one question a call and by the same
  retriever offering ``search_batch``.
"""

from __future__ import annotations

import json
import re
import shutil
from importlib.util import find_spec
from pathlib import Path

import chunking_evaluation
import common_needles
import synthetic
import yaml
from measure import (
    MB,
    PLUGIN,
    Row,
    Run,
    Sizes,
    alternate,
    compiled,
    median,
    median_cpu,
    pytest_run,
)

TEMPLATE = Path(__file__).parent / "project"


def common(work: Path, sizes: Sizes) -> list[Row]:
    """Common-needle cases against the hand-written test: time, growth and peak memory.

    Every run is a fresh process with ``--tb=no``, alternated with the others
    ``sizes.common_repeats`` times: the plugin over the small and the large gold
    file, and the hand-written test over the small file's cases and the large file's.
    """
    small, large = sizes.common_cases
    found, gold = common_needles.write_project(
        work / "common", corpus_chars=sizes.common_corpus, case_counts=(small, large)
    )
    root = work / "common"
    env = compiled(root)  # the plugin's bytecode kept, as an installed wheel has it
    runs: dict[str, list[Run]] = {"small": [], "large": [], "by hand": [], "small by hand": []}
    first_cases = {**env, "CHUNKRECALL_BENCH_FIRST": str(small)}
    # untimed: each side's modules compiled once
    pytest_run(root, *PLUGIN, "--tb=no", str(gold[small]), env=env)
    pytest_run(root, "--tb=no", "test_handwritten.py", env=first_cases)
    for _ in range(sizes.common_repeats):
        runs["small"].append(pytest_run(root, *PLUGIN, "--tb=no", str(gold[small]), env=env))
        runs["large"].append(pytest_run(root, *PLUGIN, "--tb=no", str(gold[large]), env=env))
        runs["by hand"].append(pytest_run(root, "--tb=no", "test_handwritten.py", env=env))
        runs["small by hand"].append(
            pytest_run(root, "--tb=no", "test_handwritten.py", env=first_cases)
        )
    plugin, by_hand, first = median(runs["large"]), median(runs["by hand"]), median(runs["small"])
    first_by_hand = median(runs["small by hand"])
    # The high-water marks hardly move between repeats: the largest of each side.
    plugin_peak = max(run.peak_mb for run in runs["large"])
    hand_peak = max(run.peak_mb for run in runs["by hand"])
    own = (plugin_peak - hand_peak) * MB / found.chars
    asked = yaml.safe_load(gold[large].read_text(encoding="utf-8"))["cases"]
    needles = sorted(found.counts[case["needle"]] for case in asked)
    failed = [_counted(run, "failed") for run in (runs["large"][-1], runs["by hand"][-1])]
    setting = (
        f"{found.chars / MB:.1f} MB of random words, 200-char spans, each needle a word of its "
        f"span found {needles[len(needles) // 2]:,} times (median); `--tb=no`, median of "
        f"{sizes.common_repeats}"
    )
    return [
        Row(
            "common needles, time",
            f"{large:,} cases; {setting}",
            f"plugin {plugin:.1f} s / by hand {by_hand:.1f} s = **{plugin / by_hand:.2f}x** "
            f"(failed: plugin {failed[0]:,}, by hand {failed[1]:,})",
            "<= 1.2x the hand-written test",
            plugin / by_hand <= 1.2,
        ),
        Row(
            "common needles, growth",
            f"{small:,} vs {large:,} cases, the first a prefix of the second; {setting}",
            f"{small:,} cases {first:.1f} s, {large:,} cases {plugin:.1f} s = "
            f"**{plugin / first:.1f}x**; by hand {first_by_hand:.1f} s and {by_hand:.1f} s = "
            f"{by_hand / first_by_hand:.1f}x",
            "<= 4x",
            plugin / first <= 4,
        ),
        Row(
            "common needles, memory",
            f"{large:,} cases; {setting}",
            f"peak: plugin {plugin_peak:.0f} MB, by hand {hand_peak:.0f} MB; the plugin's own "
            f"{plugin_peak - hand_peak:.0f} MB = **{own:.1f}x** the corpus",
            "<= 2x the corpus",
            own <= 2,
        ),
    ]


def _counted(run: Run, outcome: str) -> int:
    """How many tests the run's last line counts as ``outcome`` ("failed", "xfailed")."""
    found = re.search(rf"(\d+) {outcome}\b", run.output)
    return int(found.group(1)) if found else 0


def concurrency(work: Path, sizes: Sizes) -> Row:
    """A retriever that sleeps 20 ms a call, one call in flight against eight, and without the sleep.

    The run without the sleep is the floor; what the sleeping adds above it
    should shrink by up to 8x when eight calls are in flight.
    """
    sleepy, awake = (
        synthetic.write_project(
            work / f"slow-{sleep}",
            cases=sizes.slow_cases,
            corpus_chars=MB // 2,
            documents_count=10,
            retriever="keywords:index",
            retriever_args={"sleep": sleep},
        )
        for sleep in (0.02, 0.0)
    )

    def at(project: synthetic.Project, workers: int) -> Run:
        option = f"chunkrecall_concurrency={workers}"
        return pytest_run(project.root, *PLUGIN, "-o", option, "gold")

    runs: dict[str, list[Run]] = {"1": [], "8": [], "floor": []}
    for _ in range(sizes.slow_repeats):
        runs["1"].append(at(sleepy, 1))
        runs["8"].append(at(sleepy, 8))
        runs["floor"].append(at(awake, 1))
    serial, eight, floor = (median(runs[key]) for key in ("1", "8", "floor"))
    overlap = (serial - floor) / max(eight - floor, 1e-3)
    return Row(
        "concurrency",
        f"{sizes.slow_cases:,} cases, retriever sleeps 20 ms a call, "
        f"median of {sizes.slow_repeats}",
        f"`chunkrecall_concurrency=1` {serial:.2f} s / `=8` {eight:.2f} s "
        f"= **{serial / eight:.2f}x**; without the sleep {floor:.2f} s, so the waiting "
        f"({sizes.slow_cases * 0.02:.1f} s serial) shrank **{overlap:.1f}x**",
        "the waiting shrinks >= 4x",
        overlap >= 4,
    )


def repeat(work: Path, sizes: Sizes) -> Row:
    """The cost of asking each question three times against once, over one suite.

    Three retrievals and three verdicts a case, but one collection, one corpus
    read and one index: the ratio is below 3x by what is done once.
    """
    project = synthetic.overhead_project(
        work / "repeat", sizes.overhead_cases, sizes.overhead_corpus
    )

    def asked(times: int) -> Run:
        return pytest_run(project.root, *PLUGIN, "-o", f"chunkrecall_repeat={times}", "gold")

    once, thrice = alternate(sizes.repeats, lambda: asked(1), lambda: asked(3))
    ratio = median(thrice) / median(once)
    return Row(
        "repeat",
        f"{sizes.overhead_cases:,} cases, {project.corpus_chars / MB:.1f} MB corpus, "
        f"median of {sizes.repeats}",
        f"`chunkrecall_repeat=3` {median(thrice):.2f} s / `=1` {median(once):.2f} s "
        f"= **{ratio:.2f}x**",
        "<= 3.0x",
        ratio <= 3.0,
    )


def known_misses(work: Path, sizes: Sizes) -> Row:
    """A suite whose baseline knows half its cases as misses, against a hand-written test that
    makes the same misses expected failures (``project/test_known_misses.py``)."""
    project = synthetic.overhead_project(
        work / "known", sizes.overhead_cases, sizes.overhead_corpus
    )
    gold = project.root / "gold" / "questions.yaml"
    suite = yaml.safe_load(gold.read_text(encoding="utf-8"))
    plan = json.loads((project.root / "cases.json").read_text(encoding="utf-8"))
    for case, planned in list(zip(suite["cases"], plan["cases"], strict=True))[1::2]:
        case["question"] = planned[1] = "zzqx qxzz"  # no word the index knows: nothing back
    gold.write_text(yaml.safe_dump(suite, sort_keys=False), encoding="utf-8")
    path = project.root / "baseline.json"
    baseline = ("--chunkrecall-baseline", str(path))
    env = compiled(work / "known")  # the plugin's bytecode kept, as an installed wheel has it
    pytest_run(project.root, *PLUGIN, "--chunkrecall-update-baseline", *baseline, "gold", env=env)
    # the hand-written test expects the misses the baseline knows, as the plugin does
    (accepted,) = json.loads(path.read_text(encoding="utf-8"))["gold_files"].values()
    plan["known_misses"] = [
        case_id for case_id, was in accepted["cases"].items() if was["verdict"] != "hit"
    ]
    (project.root / "cases.json").write_text(json.dumps(plan), encoding="utf-8")

    def through_plugin() -> Run:
        return pytest_run(project.root, *PLUGIN, *baseline, "gold", env=env)

    def written_by_hand() -> Run:
        return pytest_run(project.root, "test_known_misses.py", env=env)

    plugin, by_hand = alternate(sizes.repeats, through_plugin, written_by_hand)
    expected = {_counted(run, "xfailed") for run in (*plugin, *by_hand)}
    if len(expected) != 1:
        raise SystemExit(f"known-miss row: the two sides expected {expected} failures")
    ratio = median(plugin) / median(by_hand)
    return Row(
        "known misses",
        f"{sizes.overhead_cases:,} cases, {expected.pop():,} of them known misses in the "
        f"baseline, median of {sizes.repeats}",
        f"plugin {median(plugin):.2f} s / by hand {median(by_hand):.2f} s = **{ratio:.2f}x**",
        "<= 1.2x",
        ratio <= 1.2,
    )


def batching(work: Path, sizes: Sizes) -> Row:
    """wordllama over every chunking-evaluation question: per question against batched."""
    data = chunking_evaluation.DATA
    if not (data / "questions_df.csv").is_file():
        return Row("batching", f"no data at {data}", "skipped")
    if find_spec("wordllama") is None or find_spec("numpy") is None:
        return Row("batching", "wordllama is not installed", "skipped")
    project = work / "batching"
    cases = write_questions(data, project)
    ways = ("per_question", "batched")
    calls: dict[str, dict[str, float]] = {}

    def way(name: str) -> Run:
        counted = work / f"batching-{name}"
        run = pytest_run(
            project,
            *PLUGIN,
            "-o",
            f"chunkrecall_retriever=embeddings:{name}",
            "--chunkrecall-report",
            str(project / f"{name}.json"),
            "gold",
            env={"CHUNKRECALL_BENCH_CALLS": str(counted)},
        )
        [written] = work.glob(f"{counted.name}.*")
        calls[name] = json.loads(written.read_text(encoding="utf-8"))
        written.unlink()
        return run

    single, batched = alternate(
        sizes.batch_repeats, lambda: way("per_question"), lambda: way("batched")
    )
    totals = [json.loads((project / f"{name}.json").read_text())["totals"] for name in ways]
    same = totals[0] == totals[1]

    def made(name: str) -> float:
        return calls[name]["search"] + calls[name]["search_batch"]

    def spent(name: str) -> str:
        counted = calls[name]
        return (
            f"{counted['search']:.0f} `search` + {counted['search_batch']:.0f} `search_batch` "
            f"calls for {counted['questions']:.0f} questions, {counted['seconds']:.2f} s in them"
        )

    return Row(
        "batching",
        f"wordllama (dense) over chunking_evaluation's {cases} questions, 5 corpora, "
        f"fixed_size 800/200, k 5, median of {sizes.batch_repeats}",
        f"per question {median(single):.2f} s ({spent('per_question')}) / offering "
        f"`search_batch` {median(batched):.2f} s ({spent('batched')}) "
        f"= **{median(single) / median(batched):.2f}x**; hit-rate {totals[1]['hit_rate']:.1%}"
        f"{'' if same else ' (**the two runs differ**)'}",
        "same verdicts, at most half the calls",
        same and 2 * made("batched") <= made("per_question"),
    )


def write_questions(data: Path, project: Path) -> int:
    """One gold file per corpus, one case per question; the number of questions."""
    (project / "docs").mkdir(parents=True)
    (project / "gold").mkdir()
    (project / "pytest.ini").write_text("[pytest]\npythonpath = .\n", encoding="utf-8")
    for module in ("conftest.py", "keywords.py", "embeddings.py"):
        shutil.copy(TEMPLATE / module, project / module)
    questions = chunking_evaluation.read_questions(data / "questions_df.csv")
    for corpus, asked in sorted(questions.items()):
        shutil.copy(data / "corpora" / f"{corpus}.md", project / "docs" / f"{corpus}.md")
        gold = {
            "corpus": f"../docs/{corpus}.md",
            "chunker": "pytest_chunkrecall.chunkers:fixed_size",
            "chunker_args": {"size": 800, "overlap": 200},
            "k": 5,
            "cases": chunking_evaluation.gold_cases(asked, "question"),
        }
        text = yaml.safe_dump(gold, sort_keys=False, allow_unicode=True)
        (project / "gold" / f"{corpus}.yaml").write_text(text, encoding="utf-8")
    return sum(len(asked) for asked in questions.values())


def report_overhead(work: Path, sizes: Sizes) -> Row:
    """The overhead row's suite with ``--chunkrecall-report``, against the hand-written test.

    The composite action, ``merge``, ``compare`` and sharded runs all ask for the
    JSON report: this is the overhead most users pay.
    """
    project = synthetic.overhead_project(
        work / "report-overhead", sizes.overhead_cases, sizes.overhead_corpus
    )
    env = compiled(project.root)  # the plugin's bytecode kept, as an installed wheel has it
    report = ("--chunkrecall-report", str(project.root / "report.json"))

    def through_plugin() -> Run:
        return pytest_run(project.root, *PLUGIN, *report, "gold", env=env)

    def written_by_hand() -> Run:
        return pytest_run(project.root, "test_handwritten.py", env=env)

    through_plugin(), written_by_hand()  # untimed: each side's modules compiled once
    plugin, by_hand = alternate(sizes.repeats, through_plugin, written_by_hand)
    ratio = median(plugin) / median(by_hand)
    return Row(
        "overhead, JSON report",
        f"{sizes.overhead_cases:,} cases, {project.corpus_chars / MB:.1f} MB corpus, "
        f"`--chunkrecall-report`, median of {sizes.repeats}",
        f"plugin {median(plugin):.2f} s / by hand {median(by_hand):.2f} s = **{ratio:.2f}x** "
        f"(CPU time {median_cpu(plugin) / median_cpu(by_hand):.2f}x)",
        "<= 1.0x",
        ratio <= 1.0,
    )


def misses(work: Path, sizes: Sizes) -> list[Row]:
    """The common-needle corpus with a retriever that ranks the holding chunk low: mostly misses.

    Every miss is explained (its holder, the deeper retrieval, the message); the
    hand-written test only fails. At the default depth (50) and at depth 0, for
    time and for the plugin's own peak memory, ``--tb=no``. Beside them, the
    default depth against the hand-written test asking the retriever 50 deep on a
    miss as well (``CHUNKRECALL_BENCH_DEPTH``): the same retrieval work, by hand.
    """
    root = work / "misses"
    found, gold = common_needles.write_project(
        root,
        corpus_chars=sizes.common_corpus,
        case_counts=(sizes.miss_cases,),
        retriever="keywords:misranked",
    )
    env = compiled(root)
    target = str(gold[sizes.miss_cases])

    def at(depth: int | None) -> Run:
        option = () if depth is None else ("-o", f"chunkrecall_depth={depth}")
        return pytest_run(root, *PLUGIN, "--tb=no", *option, target, env=env)

    def written_by_hand(depth: int = 0) -> Run:
        asked = {**env, "CHUNKRECALL_BENCH_DEPTH": str(depth)}
        return pytest_run(root, "--tb=no", "test_handwritten.py", env=asked)

    at(0), written_by_hand()  # untimed: each side's modules compiled once
    runs: dict[str, list[Run]] = {"default": [], "0": [], "by hand": [], "by hand, 50": []}
    for _ in range(sizes.common_repeats):
        runs["default"].append(at(None))
        runs["0"].append(at(0))
        runs["by hand"].append(written_by_hand())
        runs["by hand, 50"].append(written_by_hand(50))
    by_hand = median(runs["by hand"])
    hand_peak = max(run.peak_mb for run in runs["by hand"])
    failed = _counted(runs["default"][-1], "failed")
    setting = (
        f"{sizes.miss_cases:,} cases, {failed:,} of them misses (by hand: "
        f"{_counted(runs['by hand'][-1], 'failed'):,}); {found.chars / MB:.1f} MB of random "
        f"words, common needles, the holding chunk ranked last; `--tb=no`, median of "
        f"{sizes.common_repeats}"
    )
    rows = []
    for key, depth, time_target, limit in (
        ("default", "default depth (50)", "<= 1.3x", 1.3),
        ("0", "`chunkrecall_depth = 0`", "<= 1.2x", 1.2),
    ):
        plugin = median(runs[key])
        peak = max(run.peak_mb for run in runs[key])
        own = (peak - hand_peak) * MB / found.chars
        rows += [
            Row(
                "mostly misses, time",
                f"{depth}; {setting}",
                f"plugin {plugin:.1f} s / by hand {by_hand:.1f} s = **{plugin / by_hand:.2f}x**",
                f"{time_target} the hand-written test",
                plugin / by_hand <= limit,
            ),
            Row(
                "mostly misses, memory",
                f"{depth}; {setting}",
                f"peak: plugin {peak:.0f} MB, by hand {hand_peak:.0f} MB; the plugin's own "
                f"{peak - hand_peak:.0f} MB = **{own:.1f}x** the corpus",
                "<= 2x the corpus",
                own <= 2,
            ),
        ]
    plugin, deep_by_hand = median(runs["default"]), median(runs["by hand, 50"])
    rows.append(
        Row(
            "mostly misses, time, the same deeper retrieval by hand",
            f"default depth (50); the hand-written test asks the retriever 50 deep on a miss "
            f"too and names the holding rank; {setting}",
            f"plugin {plugin:.1f} s / by hand {deep_by_hand:.1f} s = "
            f"**{plugin / deep_by_hand:.2f}x**",
        )
    )
    return rows


def hundred_thousand(work: Path, sizes: Sizes) -> list[Row]:
    """The overhead row's cheap cases, 100,000 of them over a 20 MB corpus, for time and memory."""
    project = synthetic.write_project(
        work / "huge",
        cases=sizes.huge_cases,
        corpus_chars=sizes.huge_corpus,
        documents_count=200,
        retriever="keywords:index",
    )
    env = compiled(project.root)

    def through_plugin() -> Run:
        return pytest_run(project.root, *PLUGIN, "--tb=no", "gold", env=env)

    def written_by_hand() -> Run:
        return pytest_run(project.root, "--tb=no", "test_handwritten.py", env=env)

    plugin, by_hand = alternate(sizes.huge_repeats, through_plugin, written_by_hand)
    ratio = median(plugin) / median(by_hand)
    plugin_peak = max(run.peak_mb for run in plugin)
    hand_peak = max(run.peak_mb for run in by_hand)
    setting = (
        f"{sizes.huge_cases:,} cases, {project.corpus_chars / MB:.1f} MB corpus, 200 documents, "
        f"`--tb=no`, {'one run' if sizes.huge_repeats == 1 else f'median of {sizes.huge_repeats}'} "
        f"a side"
    )
    return [
        Row(
            f"{sizes.huge_cases:,} cases, time",
            setting,
            f"plugin {median(plugin):.1f} s / by hand {median(by_hand):.1f} s = "
            f"**{ratio:.2f}x** (failed: plugin {_counted(plugin[-1], 'failed'):,}, "
            f"by hand {_counted(by_hand[-1], 'failed'):,})",
        ),
        Row(
            f"{sizes.huge_cases:,} cases, memory",
            setting,
            f"peak: plugin {plugin_peak:.0f} MB, by hand {hand_peak:.0f} MB = "
            f"**{plugin_peak / hand_peak:.2f}x**",
        ),
    ]
