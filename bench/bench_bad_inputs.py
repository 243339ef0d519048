"""Wall time of `judgelab run BAD.toml` and `judgelab plan BAD.toml` for each bad-input case of
tests/test_bad_inputs.py (target: under 2 s each). Prints figures; asserts nothing.

.venv/bin/python bench/bench_bad_inputs.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
# tests/ itself, as pytest puts it on the path: `tests.…` would find the top-level `tests`
# package that ppi-python's wheel installs into site-packages
sys.path.insert(1, str(Path(__file__).resolve().parent.parent / "tests"))

from test_bad_inputs import CASES, run_cli, write_case


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1, help="runs per case; the best is shown")
    args = parser.parse_args()
    print(f"{'case':28} {'run s':>7} {'plan s':>7}  exit  wrote  error (first words)")
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for i, (name, case) in enumerate(CASES.items()):
            study_file = write_case(case, Path(tmp) / f"case{i}")
            times, done = {}, None
            for command in ("run", "plan"):
                best = float("inf")
                for _ in range(args.repeat):
                    started = time.perf_counter()
                    done = run_cli(command, study_file, Path(tmp) / f"data{i}")
                    best = min(best, time.perf_counter() - started)
                times[command] = best
            worst = max(worst, *times.values())
            words = done.stderr.strip().split(": ", 2)[-1][:50]
            wrote = "yes" if (Path(tmp) / f"data{i}").exists() else "no"
            row = f"{name:28} {times['run']:7.2f} {times['plan']:7.2f}  {done.returncode:4}"
            print(f"{row}  {wrote:5}  {words}")
    print(f"slowest: {worst:.2f} s")


if __name__ == "__main__":
    main()
