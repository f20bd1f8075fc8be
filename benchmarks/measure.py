"""What one benchmark measure is made of: a fresh pytest process timed and weighed, and a row.

Shared by ``run.py`` (the table) and ``scale.py`` (the rows on how the cost
grows), so that every row times its pytest runs the same way.
"""

from __future__ import annotations

import importlib.util
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = ("-p", "pytest_chunkrecall.plugin")
XDIST = ("-p", "xdist.plugin")
HAS_XDIST = importlib.util.find_spec("xdist") is not None
MB = 1_000_000
# pytest, reporting its own peak RSS as it exits. The high-water mark of the
# process's own memory (VmHWM): ru_maxrss would count the pages of this process
# that the child shared between fork and exec.
PYTEST = """
import atexit, sys, pytest
def peak():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                print(f"\\nchunkrecall-bench-peak-kib {line.split()[1]}")
if sys.platform == "linux":
    atexit.register(peak)
sys.argv[0] = "pytest"
sys.exit(pytest.console_main())
"""


@dataclass(frozen=True)
class Sizes:
    """How big each measure is (``--quick`` shrinks them all)."""

    overhead_cases: int = 5000
    overhead_corpus: int = 2 * MB
    repeats: int = 5
    big_corpus: int = 20 * MB
    spans: tuple[int, int] = (1000, 10_000)
    build_files: int = 10
    xdist_cases: int = 2000
    xdist_repeats: int = 3
    common_corpus: int = 20 * MB
    common_cases: tuple[int, int] = (1000, 10_000)
    common_repeats: int = 3
    failures: tuple[int, ...] = (700, 2800, 7000)
    slow_cases: int = 400
    slow_repeats: int = 3
    batch_repeats: int = 3
    miss_cases: int = 10_000
    huge_cases: int = 100_000
    huge_corpus: int = 20 * MB
    huge_repeats: int = 1


QUICK = Sizes(
    overhead_cases=1000,
    overhead_corpus=MB // 2,
    repeats=3,
    big_corpus=2 * MB,
    spans=(100, 1000),
    build_files=4,
    xdist_cases=500,
    xdist_repeats=2,
    common_corpus=2 * MB,
    common_cases=(100, 1000),
    common_repeats=1,
    failures=(50, 100, 200),
    slow_cases=100,
    slow_repeats=1,
    batch_repeats=1,
    miss_cases=1000,
    huge_cases=5000,
    huge_corpus=2 * MB,
)


@dataclass(frozen=True)
class Run:
    """One finished pytest process."""

    seconds: float
    cpu_seconds: float
    peak_mb: float
    output: str


@dataclass(frozen=True)
class Row:
    """One line of the table; ``met`` says whether the target holds (``None``: no target)."""

    measure: str
    setting: str
    result: str
    target: str = ""
    met: bool | None = None


def pytest_run(project: Path, *args: str, env: dict[str, str] | None = None) -> Run:
    """Run pytest in ``project`` in a fresh process: its wall time and its peak RSS."""
    command = [sys.executable, "-c", PYTEST, "-q", "-p", "no:cacheprovider", *args]
    environment = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        "PYTEST_ADDOPTS": "",
        **(env or {}),
    }
    with tempfile.TemporaryFile() as output:
        started = time.perf_counter()
        process = subprocess.Popen(
            command, cwd=project, env=environment, stdout=output, stderr=subprocess.STDOUT
        )
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        output.seek(0)
        text = output.read().decode("utf-8", "replace")
    code = process.returncode
    if code not in (0, 1) or not re.search(r"\d+ (passed|failed)", text):
        raise SystemExit(f"$ {' '.join(command)}  (in {project}) exited {code}:\n{text[-3000:]}")
    peak = re.search(r"^chunkrecall-bench-peak-kib (\d+)$", text, re.M)
    cpu = usage.ru_utime + usage.ru_stime
    return Run(seconds, cpu, int(peak.group(1)) * 1024 / MB if peak else float("nan"), text)


def compiled(work: Path) -> dict[str, str]:
    """An environment in which Python keeps the bytecode it compiles, in ``work``.

    An installed package comes with its bytecode; a checkout run with
    ``PYTHONDONTWRITEBYTECODE`` set compiles every module of the plugin again in
    each process, and ``-n 2`` has three of them. With the bytecode kept outside
    the checkout, the serial run and each of ``-n 2``'s processes load it as
    they would from an installed wheel; plain tests importing the package alike.
    """
    return {"PYTHONDONTWRITEBYTECODE": "", "PYTHONPYCACHEPREFIX": str(work / "bytecode")}


def alternate(
    repeats: int, first: Callable[[], Run], second: Callable[[], Run]
) -> tuple[list[Run], list[Run]]:
    """Run ``first`` and ``second`` in turn, ``repeats`` times each, so drift falls on both."""
    a, b = [], []
    for _ in range(repeats):
        a.append(first())
        b.append(second())
    return a, b


def median(runs: Sequence[Run]) -> float:
    return statistics.median(run.seconds for run in runs)


def median_cpu(runs: Sequence[Run]) -> float:
    return statistics.median(run.cpu_seconds for run in runs)
