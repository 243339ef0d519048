"""The embedded judge (SmolLM2 in llama.cpp): calls/s of the portable build against a native one.

`make setup` builds llama-cpp-python for a portable x86-64 baseline (judgelab/bootstrap.py:
AVX2/FMA/F16C, no -march=native, no AVX-512, no AMX), because a native build dies with
SIGILL on hosts that advertise instructions they cannot run. This measures what that costs.

Plans the default studies (sentiment, toxicity, accuracy: every scale and prompt level) in a
temporary data dir and takes a sample of their calls grouped by design. Two worker
processes hold the shipped provider (tasks/judging/providers.LocalLlama), one importing the
venv's portable build, one a native (-march=native) build of the same locked version
(`python judgelab/bootstrap.py --native` compiles it into its own wheel directory; it is
never installed into the venv). Each design's calls go to both, design by design in
alternating order, one llama.cpp thread each so they do not fight over the cores.

Printed: each build's CPU features, calls/s of each and their ratio, and how many answers
agree at temperature 0. Then, for the portable build: calls/s with two designs interleaved
call by call against grouped (prefix reuse), and with 1 against 2 threads. Asserts nothing.

.venv/bin/python bench/bench_local.py [--calls 500] [--order-calls 60]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from judgelab.env import apply_defaults

apply_defaults()

import polars as pl  # noqa: E402

from judgelab.settings import PROJECT_ROOT  # noqa: E402
from tasks.judging import providers  # noqa: E402
from tasks.judging.cache import missing_calls  # noqa: E402

MODEL = "smollm2-135m-instruct"
STUDIES = ("sentiment", "toxicity", "accuracy")
MIRROR = os.environ.get("JUDGELAB_DATA_MIRROR") or str(PROJECT_ROOT.parent / "shared/datasets")


def planned_calls(calls: int, tmp: Path) -> pl.DataFrame:
    """`calls` planned calls spread evenly over every (study, scale, prompt level) design,
    in the judge stage's order (designs back to back)."""
    env = {**os.environ, "JUDGELAB_DATA_DIR": str(tmp), "JUDGELAB_DATA_MIRROR": MIRROR}
    plans = []
    for study in STUDIES:
        subprocess.run(
            [sys.executable, "-m", "judgelab.cli", "plan", f"studies/{study}.toml"],
            env=env,
            cwd=PROJECT_ROOT,
            check=True,
            capture_output=True,
        )
        plans.append(pl.read_parquet(tmp / "warehouse" / "plan" / f"{study}.parquet"))
    plan = pl.concat(plans, how="diagonal_relaxed")
    designs = plan.select("study", "scale", "prompt_level").unique().height
    per = -(-calls // designs)
    sample = plan.filter(pl.int_range(pl.len()).over("study", "scale", "prompt_level") < per)
    none_done = pl.DataFrame({"key": []}, {"key": pl.String})
    return missing_calls(sample, none_done, sample["judge"][0], 0, 1).head(calls)


class After:
    """The shipped provider, called as litellm calls it."""

    def __init__(self, threads: str = "") -> None:
        os.environ["JUDGELAB_LOCAL_THREADS"] = threads
        self.provider = providers.LocalLlama()
        self.provider._load(MODEL)
        self.threads = self.provider._models[MODEL].n_threads

    def __call__(self, row: dict) -> str:
        params = json.loads(row["params"])
        resp = self.provider.completion(MODEL, json.loads(row["messages"]), params)
        return resp.choices[0].message.content


def timed(judge, rows: list[dict]) -> tuple[float, list[str]]:
    t0 = time.perf_counter()
    answers = [judge(r) for r in rows]
    return time.perf_counter() - t0, answers


def worker() -> None:
    """One build's judge: a JSON list of rows per stdin line, (seconds, answers) per line out."""
    import llama_cpp

    judge = After("1")
    features = llama_cpp.llama_print_system_info().decode().strip()
    print(json.dumps({"lib": llama_cpp.__file__, "features": features}), flush=True)
    for line in sys.stdin:
        print(json.dumps(timed(judge, json.loads(line))), flush=True)


class Build:
    """A worker process whose `llama_cpp` is the venv's (path None) or one under `path`."""

    def __init__(self, name: str, path: Path | None) -> None:
        env = {**os.environ, "JUDGELAB_LOCAL_THREADS": "1"}
        if path is not None:
            env["PYTHONPATH"] = os.pathsep.join([str(path), env.get("PYTHONPATH", "")])
        self.name = name
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd=PROJECT_ROOT,
        )
        self.info = json.loads(self.proc.stdout.readline())

    def __call__(self, rows: list[dict]) -> tuple[float, list[str]]:
        self.proc.stdin.write(json.dumps(rows) + "\n")
        self.proc.stdin.flush()
        return tuple(json.loads(self.proc.stdout.readline()))

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait()


def native_build(tmp: Path) -> Path | None:
    """The native wheel of the locked version, unpacked under tmp; None if not built."""
    from judgelab import bootstrap

    out = bootstrap.wheel_dir(bootstrap.NATIVE_FLAGS, bootstrap.locked_requirement())
    wheels = sorted(out.glob("llama_cpp_python-*.whl"))
    if not wheels:
        return None
    target = tmp / "native"
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index"]
    subprocess.run([*cmd, "--target", str(target), str(wheels[-1])], check=True)
    return target


def compare(rows: list[dict], builds: list[Build]) -> None:
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        groups.setdefault((r["study"], r["scale"], r["prompt_level"]), []).append(r)
    for b in builds:  # grammars compile, weights page in
        b(rows[:2])
    wall = Counter()
    answers: dict[str, dict[str, str]] = {b.name: {} for b in builds}
    for k, group in enumerate(groups.values()):
        for b in builds if k % 2 == 0 else builds[::-1]:
            dt, got = b(group)
            wall[b.name] += dt
            answers[b.name].update(zip([r["key"] for r in group], got, strict=True))
    n = len(rows)
    print(f"{n} calls over {len(groups)} designs, interleaved design by design, 1 thread each")
    for b in builds:
        print(f"{b.name:8} {n / wall[b.name]:5.2f} calls/s   {b.info['features']}")
    if len(builds) == 2:
        (x, y) = (b.name for b in builds)
        print(f"ratio {x}/{y}: {wall[y] / wall[x]:.3f}")
        same = sum(answers[x][r["key"]] == answers[y][r["key"]] for r in rows)
        print(f"answers agreeing at temperature 0: {same}/{n} ({same / n:.1%})")


def order_and_threads(rows: list[dict], calls: int) -> None:
    """Grouped against interleaved call order, 1 against 2 threads (the shipped provider)."""
    long = [r for r in rows if r["prompt_level"] == "long_icl"]
    by_design: dict[tuple, list[dict]] = {}
    for r in long:
        by_design.setdefault((r["study"], r["scale"]), []).append(r)
    a, b = list(by_design.values())[:2]
    m = min(len(a), len(b), calls // 2)
    grouped = a[:m] + b[:m]
    mixed = [r for pair in zip(a[:m], b[:m], strict=True) for r in pair]
    for threads in ("1", "2"):
        judge = After(threads)
        rates = {}
        for name, sample in (("grouped", grouped), ("interleaved", mixed), ("grouped", grouped)):
            dt, _ = timed(judge, sample)
            rates.setdefault(name, []).append(len(sample) / dt)
        g, i = max(rates["grouped"]), rates["interleaved"][0]
        print(
            f"{threads} thread(s), two long in-context designs: grouped {g:5.2f} calls/s, "
            f"interleaved {i:5.2f} calls/s (grouped/interleaved {g / i:.1f}x)"
        )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--calls", type=int, default=500)
    p.add_argument("--order-calls", type=int, default=60)
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        return worker()
    print(f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as tmp:
        rows = planned_calls(args.calls, Path(tmp)).to_dicts()
        native = native_build(Path(tmp))
        builds = [Build("portable", None)]
        if native is None:
            print("no native build to compare: python judgelab/bootstrap.py --native builds one")
        else:
            builds.append(Build("native", native))
        try:
            compare(rows, builds)
        finally:
            for b in builds:
                b.close()
    if args.order_calls:
        order_and_threads(rows, args.order_calls)


if __name__ == "__main__":
    main()
