"""The embedded judge (SmolLM2 in llama.cpp): calls/s and answers, before and after.

Plans the default studies (sentiment, toxicity, accuracy: every scale and prompt level) in a
temporary data dir, takes a sample of their calls grouped by design, and makes each design's
calls twice, interleaved design by design in alternating order:

  before: the whole answer decoded under the grammar (`create_chat_completion`, what
          judgelab did until this change), threads fixed at 2;
  after:  the provider judgelab ships (tasks/judging/providers.LocalLlama): the answer's
          fixed opening written into the prompt, only the value decoded, threads chosen from
          the free cores.

Printed: calls/s of each and their ratio; how many answers agree at temperature 0, with
every difference listed (scale, before, after). Then, for the shipped provider: calls/s
with the sample's designs interleaved call by call against grouped (prefix reuse), and with
1 against 2 threads. Asserts nothing.

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
from tasks.judging.grammar import score_grammar  # noqa: E402

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


class Before:
    """Judgelab's local path until this change: the whole answer under the grammar."""

    def __init__(self) -> None:
        from llama_cpp import Llama

        path = providers.LOCAL_MODELS[MODEL]()
        self.llm = Llama(model_path=str(path), n_ctx=2048, n_threads=2, verbose=False)

    def __call__(self, row: dict) -> str:
        params = json.loads(row["params"])
        out = self.llm.create_chat_completion(
            messages=json.loads(row["messages"]),
            temperature=params["temperature"],
            seed=params["seed"],
            max_tokens=params["max_tokens"],
            grammar=score_grammar(params["response_format"]["json_schema"]["schema"]),
        )
        return out["choices"][0]["message"]["content"]


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


def compare(rows: list[dict], before: Before, after: After) -> None:
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        groups.setdefault((r["study"], r["scale"], r["prompt_level"]), []).append(r)
    wall = Counter()
    answers: dict[str, dict[str, str]] = {"before": {}, "after": {}}
    for k, group in enumerate(groups.values()):
        order = [("before", before), ("after", after)]
        for name, judge in order if k % 2 == 0 else order[::-1]:
            dt, got = timed(judge, group)
            wall[name] += dt
            answers[name].update(zip([r["key"] for r in group], got, strict=True))
    n = len(rows)
    b, a = n / wall["before"], n / wall["after"]
    print(f"{n} calls over {len(groups)} designs, interleaved design by design")
    print(f"before (whole answer decoded, 2 threads): {b:5.2f} calls/s")
    print(f"after  (opening in the prompt, {after.threads} thread(s)): {a:5.2f} calls/s")
    print(f"ratio after/before: {a / b:.2f}")
    diff = [
        (r["scale"], answers["before"][r["key"]], answers["after"][r["key"]])
        for r in rows
        if answers["before"][r["key"]] != answers["after"][r["key"]]
    ]
    print(f"answers agreeing at temperature 0: {n - len(diff)}/{n} ({1 - len(diff) / n:.1%})")
    for scale, x, y in diff:
        print(f"  {scale:9} before {x!r:32} after {y!r}")


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
    args = p.parse_args()
    print(f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as tmp:
        rows = planned_calls(args.calls, Path(tmp)).to_dicts()
    before, after = Before(), After()
    for judge in (before, after):  # grammars compile, weights page in
        timed(judge, rows[:2])
    compare(rows, before, after)
    order_and_threads(rows, args.order_calls)


if __name__ == "__main__":
    main()
