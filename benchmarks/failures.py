"""pytest's own failure summary, without the plugin: default ``--tb`` against ``--tb=line``.

For each failed test, pytest's summary of failures (``_pytest/terminal.py``,
``TerminalReporter.summary_failures``) looks for the test's teardown sections
in every report of the run (``_get_teardown_reports``), so the summary costs
time in proportion to failures times reports: quadratic when most tests fail.
``--tb=line`` prints one line a failure and skips that search; ``--tb=no``
prints no failure summary at all. The row times plain failing tests, no
plugin loaded, at three counts, each count and option once:

    python benchmarks/run.py --only failures
"""

from __future__ import annotations

from pathlib import Path

from measure import Row, Sizes, pytest_run

FAILING_TESTS = """
import pytest

@pytest.mark.parametrize("number", range({count}))
def test_fails(number):
    assert number < 0
"""

OPTIONS = ("--tb=auto", "--tb=line", "--tb=no")


def write_failing(root: Path, count: int) -> Path:
    """A folder holding one module of ``count`` parametrized tests that all fail."""
    root.mkdir(parents=True)
    (root / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (root / "test_fails.py").write_text(FAILING_TESTS.format(count=count), encoding="utf-8")
    return root


def failures(work: Path, sizes: Sizes) -> Row:
    """Seconds for each count of failing tests under each ``--tb``; the largest count's ratio."""
    seconds: dict[tuple[int, str], float] = {}
    for count in sizes.failures:
        root = write_failing(work / f"failures-{count}", count)
        for option in OPTIONS:
            run = pytest_run(root, option)
            if f"{count} failed" not in run.output:
                raise SystemExit(f"{count} failing tests with {option}:\n{run.output[-2000:]}")
            seconds[count, option] = run.seconds
    largest = sizes.failures[-1]
    times = "; ".join(
        f"{count:,}: " + ", ".join(f"`{o}` {seconds[count, o]:.1f} s" for o in OPTIONS)
        for count in sizes.failures
    )
    default, line = seconds[largest, "--tb=auto"], seconds[largest, "--tb=line"]
    return Row(
        "pytest's failure summary",
        f"plain failing tests, no plugin, {', '.join(f'{c:,}' for c in sizes.failures)} "
        "failures, one run each",
        f"{times}; at {largest:,} the default takes **{default / line:.1f}x** `--tb=line`'s time",
    )
