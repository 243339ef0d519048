"""Wall time and peak RSS of `judgelab plan` on a ~200 MB rating CSV (sample_size 5), beside
the same study on a 10,000-row file (what `plan` costs before a large file: its imports).
Prints figures; asserts nothing. The venv's `judgelab` imports the checkout its editable
install points at: set PYTHONPATH to measure another (a worktree).

.venv/bin/python bench/bench_large_file.py [--mb 200] [--keep DIR]
"""

from __future__ import annotations

import argparse
import csv
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

JUDGELAB = Path(sys.executable).parent / "judgelab"
# review-like words; some give a text a comma or quotes (quoted fields, doubled quotes)
WORDS = ["the", "a", "judge", "good", "bad", "movie", "review", "day", "night", "great"]
WORDS += ["awful", "fine", "okay", "plot", "actor", "slow", "quick", '"quoted"', "café"]
WORDS += ["naïve,", "honestly", "really", "not", "very"]
STUDY = """[study]
name = "{name}"
task = "sentiment"
benchmark = "file"
sample_size = 5
prompt_levels = ["base"]
scales = ["likert7"]

[study.data]
path = "{file}"
id_column = "item_id"
text_column = "text"
mean_column = "mean"
domain_column = "domain"
scale_min = 1
scale_max = 7

[[judges]]
name = "a"
model = "local/smollm2-135m-instruct"
"""


def write_csv(path: Path, size: int, seed: int = 0) -> int:
    """A rating file of about `size` bytes: review-like texts (~200 characters, some with
    commas and quotes), a mean on 1–7 and one of five domains; returns its rows."""
    rng = random.Random(seed)
    written = rows = 0
    with open(path, "w", newline="") as fh:
        out = csv.writer(fh, lineterminator="\n")
        out.writerow(["item_id", "text", "mean", "domain"])
        while written < size:
            text = " ".join(rng.choices(WORDS, k=max(1, int(rng.expovariate(1 / 30)))))
            out.writerow([rows, text, rng.randint(1, 7), f"d{rows % 5}"])
            rows += 1
            if rows % 10_000 == 0:
                written = fh.tell()
    return rows


def plan(study: Path, data: Path) -> tuple[float, float, int, str]:
    """(wall s, CPU s, peak RSS MB, last stderr line) of one `judgelab plan`."""
    env = {**os.environ, "JUDGELAB_DATA_DIR": str(data)}
    started = time.perf_counter()
    proc = subprocess.Popen(
        [str(JUDGELAB), "plan", str(study)],
        cwd=study.parent,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)  # this child's own figures
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        sys.exit(f"judgelab plan {study} failed ({proc.returncode}):\n{err}")
    last = err.strip().splitlines()[-1] if err.strip() else ""
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss // 1024, last


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=200, help="size of the large file (MB)")
    parser.add_argument("--keep", metavar="DIR", help="work in DIR and keep the files")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.keep or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        big, small = folder / "big.csv", folder / "small.csv"
        started = time.perf_counter()
        rows = write_csv(big, args.mb * 1_000_000)
        print(
            f"wrote {big.stat().st_size / 1e6:.0f} MB, {rows:,} rows "
            f"in {time.perf_counter() - started:.0f} s"
        )
        write_csv(small, 1)
        for name in ("big", "small"):
            (folder / f"{name}.toml").write_text(STUDY.format(name=name, file=f"{name}.csv"))
        print(f"{'file':10} {'wall s':>7} {'cpu s':>7} {'peak RSS MB':>12}")
        figures = {}
        for name in ("small", "big"):
            wall, cpu, rss, _ = plan(folder / f"{name}.toml", folder / f"data-{name}")
            figures[name] = (wall, cpu, rss)
            print(f"{name + '.csv':10} {wall:7.1f} {cpu:7.1f} {rss:12,}")
        (w1, c1, r1), (w0, c0, r0) = figures["big"], figures["small"]
        print(f"{'the file':10} {w1 - w0:+7.1f} {c1 - c0:+7.1f} {r1 - r0:+12,}")
        children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
        print(f"RUSAGE_CHILDREN ru_maxrss: {children:,} MB (the largest of the runs)")
        load = " ".join(f"{x:.1f}" for x in os.getloadavg())
        print(f"load average: {load} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
