"""How long reading a big gold file takes, and how much memory it needs while it reads.

    python benchmarks/gold_reading.py [--cases 10000] [--repeat 5]

Writes one gold file of ``--cases`` synthetic cases (each with an id, a question,
a needle and a ``{from, to}`` span, as ``benchmarks/synthetic.py`` makes them),
then reads it with :func:`pytest_chunkrecall.gold.load` in a fresh interpreter
for each YAML loader: libyaml's (``CSafeLoader``, where PyYAML was built with
it) and PyYAML's pure-Python one, which the plugin falls back on where libyaml
is missing. A third row composes the whole document in libyaml
(``yaml.compose``) instead of case by case, for comparison.

Each row gives the median CPU time of ``--repeat`` reads (CPU rather than wall
time, since the machines this runs on are often shared), and the peak of
traced memory above the cases that stay (tracemalloc, in a separate read,
since tracing slows the reading down).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).parent))

from synthetic import Prose, _case, facts

# Run in a fresh interpreter per loader: the plugin picks its loader when it is imported.
_READ = """
import json, statistics, sys, time, tracemalloc
from pathlib import Path
import yaml
if sys.argv[1] == "pure":
    del yaml.CSafeLoader
    yaml.cyaml = None
    yaml.__with_libyaml__ = False
from pytest_chunkrecall.gold import load
if sys.argv[1] == "whole":
    # the alternative to composing case by case: yaml.compose, all in libyaml
    from pytest_chunkrecall.gold import reading
    reading.compose_cases = lambda text, name, each: (yaml.compose(text, Loader=yaml.CSafeLoader), [])
path, repeat = Path(sys.argv[2]), int(sys.argv[3])
times = []
for _ in range(repeat):
    began = time.process_time()
    gold = load(path, name=path.name)
    times.append(time.process_time() - began)
    del gold
tracemalloc.start()
gold = load(path, name=path.name)
kept, peak = tracemalloc.get_traced_memory()
tracemalloc.stop()
print(json.dumps({"cases": len(gold.cases), "seconds": statistics.median(times),
                  "kept": kept, "peak_above_kept": peak - kept}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    options = parser.parse_args()
    cases = [_case(fact, spans=True) for fact in facts(options.cases, Prose(20240601))]
    gold = {"corpus": "../docs/*.md", "k": 5, "cases": cases}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "questions.yaml"
        path.write_text(yaml.safe_dump(gold, sort_keys=False), encoding="utf-8")
        size = path.stat().st_size
        print(f"{options.cases:,} cases, {size / 1e6:.1f} MB of YAML, median of {options.repeat}")
        print("| loader | read (CPU) | peak above the cases kept | cases kept |")
        print("|---|---|---|---|")
        for loader in ("libyaml", "pure", "whole"):
            done = subprocess.run(
                [sys.executable, "-c", _READ, loader, str(path), str(options.repeat)],
                capture_output=True,
                text=True,
                check=True,
            )
            row = json.loads(done.stdout.splitlines()[-1])
            label = {"whole": "libyaml, composed whole"}.get(loader, loader)
            print(
                f"| {label} | {row['seconds']:.2f} s | {row['peak_above_kept'] / 1e6:.1f} MB "
                f"| {row['kept'] / 1e6:.1f} MB |"
            )


if __name__ == "__main__":
    main()
