"""Paper-scale cost estimate (issue 28): online, batch, and batch plus prompt-cache hits.

Plans studies/paper_scale.toml (10 hosted judges with real litellm model names × 12 designs ×
500 texts per rating task, sentiment and toxicity) through `judgelab plan`'s own code
(judgelab/plan_cli.plan_study → tasks/costs.estimate) with no key and no call, then prints
per judge and in total the three figures and batch / online. Every price is read from
litellm's bundled price map (offline); nothing here is a ratio of its own.

Why batch + cache may equal batch: a design's system prompt is cached only when it is at
least the provider's minimum cacheable prefix (tasks/costs.CACHE_RULES, or the map's
prompt_cache_min_tokens); the longest shipped system prompt is printed beside that minimum.

JUDGELAB_DATA_MIRROR=../shared/datasets .venv/bin/python bench/bench_costs.py \
    [--study studies/paper_scale.toml] [--data /tmp/jl-bench-costs]
The data directory keeps the loaded benchmarks and the plan (a rerun reuses them).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
from importlib.metadata import version
from pathlib import Path

from judgelab.env import apply_defaults

apply_defaults()

import polars as pl  # noqa: E402

from judgelab.arguments import build_parser  # noqa: E402
from judgelab.plan_cli import cost_line, plan_study  # noqa: E402
from judgelab.settings import PROJECT_ROOT, Settings  # noqa: E402
from judgelab.study import load_study, study_files  # noqa: E402
from tasks import costs, warehouse  # noqa: E402


def longest_system_prompt(settings: Settings, study_name: str) -> int:
    """Estimated tokens (characters / 4, as the estimate counts) of the study's longest
    system prompt: the prefix a design's calls share."""
    messages = warehouse.read_table(settings, "plan", study_name, ["messages"])["messages"]
    systems = {
        m[0]["content"]
        for m in map(json.loads, messages.unique())
        if m and m[0].get("role") == "system"
    }
    return max((len(s) for s in systems), default=0) // costs.CHARS_PER_TOKEN


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--study", default=str(PROJECT_ROOT / "studies" / "paper_scale.toml"))
    ap.add_argument("--data", default="/tmp/jl-bench-costs")
    args = ap.parse_args()
    os.environ["JUDGELAB_DATA_DIR"] = str(Path(args.data).resolve())
    settings = Settings()

    estimates, longest = [], 0
    for path in study_files(args.study):
        plan_args = build_parser().parse_args(["plan", str(path)])
        with contextlib.redirect_stdout(io.StringIO()):  # the figures are printed below
            _, est = plan_study(path, plan_args)
        estimates.append(est.with_columns(pl.lit(Path(path).stem).alias("study")))
        longest = max(longest, longest_system_prompt(settings, load_study(path).name))
    est = pl.concat(estimates)
    per_judge = (
        est.group_by("judge", "model", maintain_order=True)
        .agg(pl.col("calls", "prompt_tokens", "cached_tokens", *costs.ESTIMATES).sum())
        .with_columns((pl.col("batch_usd") / pl.col("online_usd")).round(3).alias("batch/online"))
        .with_columns(pl.col(costs.ESTIMATES).round(2))
    )
    minimums = {}
    for model in per_judge["model"]:
        r = costs.rates(model)
        rule = costs.cache_rule(r) if r else None
        minimums[model] = rule.min_tokens if rule else None

    print(f"study: {args.study}  (litellm {version('litellm')}, offline price map)")
    with pl.Config(tbl_rows=-1, tbl_cols=-1, tbl_width_chars=200, tbl_hide_dataframe_shape=True):
        print(per_judge)
    t = costs.estimate_totals(est)
    print(f"{est['calls'].sum():,} calls; {cost_line(est)}")
    print(f"batch / online = {t['batch_ratio']:.3f}")
    known = sorted({m for m in minimums.values() if m is not None})
    print(
        f"longest system prompt ≈ {longest:,} tokens; minimum cacheable prefix of these "
        f"judges' providers: {', '.join(f'{m:,}' for m in known)} tokens "
        f"({sum(m is None for m in minimums.values())} judges' providers have no cache rule)"
    )


if __name__ == "__main__":
    main()
