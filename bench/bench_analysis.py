"""Paper-scale analysis: every analysis stage of a P1-sized study, timed one by one.

Fills a store through the fake provider `fake/planted` (judge answers are the human truth plus
planted errors, so every table has something to find):
  rating    10 judges × 3 prompt levels × 4 scales × 500 VADER texts + the VADER baseline
            (121 designs, 60,000 calls)
  accuracy  10 judges × 3 prompt levels × 2 efforts × 600 TruthfulQA pairs (60 designs,
            36,000 calls)
  pilot     3 judges × 12 designs + the VADER baseline on 12 texts (37 designs), the small
            study whose design pairs once took minutes
The filled data directory is kept in --data (filled once; later runs reuse it). Then each
study's analysis stages run in this process, each timed (best and median of --rounds) with
its peak RSS (the process's high-water mark, reset before each stage), and `judgelab run`
reruns each study with 0 calls (the real CLI and Prefect flow, ephemeral Prefect server
included): its wall time and the flow's own "finished in".

.venv/bin/python bench/bench_analysis.py [--data /tmp/jl-bench-analysis] [--rounds 3]
    [--studies rating,accuracy,pilot] [--no-rerun]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from judgelab.env import apply_defaults

apply_defaults()
os.environ["JUDGELAB_FAKE_PROVIDERS"] = "1"  # the fake judge fills the store, here and in the CLI

import polars as pl  # noqa: E402

from judgelab.settings import PROJECT_ROOT, Settings  # noqa: E402
from judgelab.study import Study, load_study  # noqa: E402
from tasks import benchmarks, warehouse  # noqa: E402
from tasks import stages as st  # noqa: E402
from tasks.accuracy import consensus, verdict_impact  # noqa: E402
from tasks.accuracy import metrics as accuracy  # noqa: E402
from tasks.rating import (  # noqa: E402
    agreement,
    ensembles,
    human_ceiling,
    thresholds,
    variance,
)
from tasks.rating.item_scores import item_scores  # noqa: E402
from tasks.rating.metrics import rating_metrics  # noqa: E402

MIRROR = Path(os.environ.get("JUDGELAB_DATA_MIRROR") or PROJECT_ROOT.parent / "shared" / "datasets")

RATING_JUDGE = """
[[judges]]
name = "planted-{i}"
model = "fake/planted"
concurrency = 256
extra = {{ truth = "{truth}", shift = {shift}, noise = {noise}, scale_shift = {scale_shift}, \
shift_on = [-3, 3] }}
"""
RATING = """
[study]
name = "{name}"
task = "sentiment"
benchmark = "vader"
sample_size = {items}
seed = 11
prompt_levels = ["base", "short_icl", "long_icl"]
scales = ["likert7", "bipolar3", "unit", "pct100"]
baselines = ["vader"]
shard_size = 100000

[study.analysis]
bootstrap = 1000
"""
ACCURACY_JUDGE = """
[[judges]]
name = "verdict-{i}"
model = "fake/planted"
concurrency = 256
supports_reasoning = true
extra = {{ truth = "{truth}", accept_wrong = {accept}, reject_right = {reject} }}
"""
ACCURACY = """
[study]
name = "{name}"
type = "accuracy"
task = "accuracy"
benchmark = "truthfulqa"
sample_size = {items}
share_correct = 0.5
seed = 5
prompt_levels = ["base", "short_icl", "long_icl"]
scales = ["verdict"]
reasoning_efforts = ["default", "low"]
shard_size = 100000
"""
# name → (kind, items, judges)
STUDIES = {
    "rating": ("rating", 500, 10),
    "accuracy": ("accuracy", 600, 10),
    "pilot": ("rating", 12, 3),
}


def _env(data: Path) -> dict[str, str]:
    return {
        **os.environ,
        "JUDGELAB_DATA_DIR": str(data),
        "JUDGELAB_DATA_MIRROR": str(MIRROR),
    }


def judgelab(data: Path, *args: str) -> tuple[float, str]:
    """Run the CLI; (wall seconds, stdout)."""
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "judgelab.cli", *args],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        env=_env(data),
    )
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"judgelab {' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}")
    return wall, proc.stdout


def write_study(root: Path, settings: Settings, name: str) -> Path:
    """The study file (and the truth file its planted judges read), written once."""
    kind, items, n_judges = STUDIES[name]
    path, truth = root / f"{name}.toml", root / f"{name}-truth.json"
    head = (RATING if kind == "rating" else ACCURACY).format(name=f"bench-{name}", items=items)
    path.write_text(head + RATING_JUDGE.format(i=0, truth=truth, shift=0, noise=0, scale_shift=0))
    study = load_study(path)
    if kind == "rating":
        frame, _ = benchmarks.load(study, settings)
        lo, hi = pl.col("human_min"), pl.col("human_max")
        fraction = ((pl.col("human_mean") - lo) / (hi - lo)).mean().alias("fraction")
        pairs = dict(frame.group_by("text").agg(fraction).iter_rows())
        judges = [
            RATING_JUDGE.format(
                i=i,
                truth=truth,
                shift=round(0.1 * (i - 5), 2),
                noise=round(0.2 + 0.1 * i, 2),
                scale_shift=0.5 if i % 3 == 0 else 0,
            )
            for i in range(n_judges)
        ]
    else:
        frame = benchmarks.load_qa(study, settings)
        pairs = {t: float(r) for t, r in frame.select("text", "reference").rows()}
        judges = [
            ACCURACY_JUDGE.format(
                i=i, truth=truth, accept=round(0.03 * i, 2), reject=round(0.02 * (9 - i), 2)
            )
            for i in range(n_judges)
        ]
    truth.write_text(json.dumps(pairs))
    path.write_text(head + "".join(judges))
    return path


def fill(root: Path, names: list[str]) -> dict[str, Path]:
    """Each study file, run once through the CLI into root/data (skipped when done before)."""
    data = root / "data"
    settings = Settings(data_dir=data, data_mirror=MIRROR)
    files = {}
    for name in names:
        path, done = root / f"{name}.toml", root / f"{name}.filled"
        if not done.exists():
            write_study(root, settings, name)
            wall, out = judgelab(data, "run", str(path))
            made = sum(int(n) for n in re.findall(r"(\d+) judge calls made", out))
            print(f"filled {name}: {made} calls in {wall:.0f} s", flush=True)
            done.touch()
        files[name] = path
    return files


def _hwm_reset() -> None:
    """Reset the process's peak RSS (Linux: writing 5 to clear_refs)."""
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")


def _hwm_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class Timer:
    """Times named stages over rounds; keeps each stage's seconds and peak RSS."""

    def __init__(self) -> None:
        self.seconds: dict[str, list[float]] = {}
        self.peak: dict[str, float] = {}

    def __call__(self, name: str, fn: Callable, *args, **kwargs):
        _hwm_reset()
        t0 = time.perf_counter()
        out = fn(*args, **kwargs)
        self.seconds.setdefault(name, []).append(time.perf_counter() - t0)
        self.peak[name] = max(self.peak.get(name, 0.0), _hwm_mb())
        return out


def rating_round(t: Timer, study: Study, settings: Settings) -> None:
    """One pass over a rating study's analysis, stage by stage (what the flow's score, analyze
    and agreement tasks run, split into their parts), then costs, views and report."""
    a = study.analysis
    t("rescale (score task)", st.rescale_stage.fn, study, settings)
    scores = warehouse.read_table(settings, "scores", study.name)
    per_item = t("item scores", item_scores, scores)
    metrics = t(
        "metrics + bootstrap CIs",
        rating_metrics,
        scores,
        n_boot=a.bootstrap,
        seed=a.seed,
        per_item=per_item,
    )
    ratings = warehouse.read_table(settings, "ratings", study.items_part)
    items = st._sampled_items(study, settings)
    t(
        "human ceiling",
        human_ceiling.human_ceiling,
        study.name,
        ratings,
        items,
        n_boot=a.bootstrap,
        seed=a.seed,
    )
    t("thresholds", thresholds.threshold_shares, metrics, a.outlier_scale)
    t(
        "design pairs (agreement)",
        agreement.design_pairs,
        per_item,
        meaningful=a.meaningful_diff,
        margin=a.margin(),
    )
    t("variance components", variance.variance_components, per_item)
    kw = {"max_ensembles": a.max_ensembles, "seed": a.seed, "baselines": a.ensemble_baselines}
    kw |= {"distinct": a.ensemble_distinct}
    t("ensembles + size curve", ensembles.ensembles, per_item, **kw, outlier_scale=a.outlier_scale)
    t("ensemble holdout", ensembles.ensemble_holdout, per_item, **kw)
    t("analyze task (whole)", st.analyze_stage.fn, study, settings)
    t("agreement task (whole)", st.agreement_stage.fn, study, settings)
    _ending(t, study, settings)


def accuracy_round(t: Timer, study: Study, settings: Settings) -> None:
    """One pass over an accuracy study's analysis, stage by stage."""
    a = study.analysis
    t("verdicts (verdicts task)", st.verdict_stage.fn, study, settings)
    verdicts = warehouse.read_table(settings, "verdicts", study.name)
    agreed = t(
        "consensus",
        consensus.consensus,
        verdicts,
        near=a.near_agreement,
        min_designs=a.min_designs,
        votes=a.consensus_votes,
    )
    metrics = t("accuracy metrics", accuracy.accuracy_metrics, verdicts, agreed, truth=a.truth)
    t("switch rates", accuracy.switch_rates, verdicts, agreed, truth=a.truth)
    t("verdict tests", verdict_impact.verdict_tests, verdicts, agreed, truth=a.truth)
    t(
        "verdict pairs (impact)",
        verdict_impact.verdict_pairs,
        verdicts,
        agreed,
        truth=a.truth,
        margin=a.margin(percent=True),
    )
    t("verdict levels (impact)", verdict_impact.verdict_levels, metrics)
    t("accuracy task (whole)", st.accuracy_stage.fn, study, settings)
    _ending(t, study, settings)


def _ending(t: Timer, study: Study, settings: Settings) -> None:
    from tasks.report.build import write_report

    t("costs", st.cost_stage.fn, study, settings)
    t("views publishing", warehouse.publish_views, settings)
    out = settings.data_dir / "reports" / f"{study.name}.html"
    t("report writing", write_report, settings, [study.name], out)


# the rows that are whole tasks re-running parts timed above: not added to the total
WHOLE = ("analyze task (whole)", "agreement task (whole)", "accuracy task (whole)")
# the flow's analysis tasks (tasks/stages.py), then what every study run ends with
TASKS = ("rescale (score task)", "verdicts (verdicts task)", *WHOLE, "costs")
ENDING = ("views publishing", "report writing")


def print_table(name: str, t: Timer) -> float:
    """The stage table in markdown; returns the total (medians of the tasks and the ending)."""
    print(f"\n### {name}\n")
    print("| stage | best s | median s | peak RSS MB |")
    print("|---|---:|---:|---:|")
    for stage, secs in t.seconds.items():
        best, median = min(secs), statistics.median(secs)
        print(f"| {stage} | {best:.2f} | {median:.2f} | {t.peak[stage]:.0f} |")
    analysis = sum(statistics.median(s) for k, s in t.seconds.items() if k in TASKS)
    ending = sum(statistics.median(s) for k, s in t.seconds.items() if k in ENDING)
    peak = max(t.peak.values())
    print(f"| **analysis tasks (score … costs)** | | **{analysis:.2f}** | |")
    print(f"| **total with views and report** | | **{analysis + ending:.2f}** | **{peak:.0f}** |")
    return analysis + ending


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", type=Path, default=Path("/tmp/jl-bench-analysis"))
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--studies", default="rating,accuracy,pilot")
    p.add_argument("--no-rerun", action="store_true", help="skip the `judgelab run` reruns")
    args = p.parse_args()
    names = args.studies.split(",")
    root = args.data.resolve()
    root.mkdir(parents=True, exist_ok=True)
    files = fill(root, names)
    settings = Settings(data_dir=root / "data", data_mirror=MIRROR)
    totals = {}
    for name in names:
        study = load_study(files[name])
        t = Timer()
        for _ in range(args.rounds):
            (accuracy_round if study.type == "accuracy" else rating_round)(t, study, settings)
        _, items, judges = STUDIES[name]
        designs = pl.read_parquet(
            warehouse.table_file(settings, "plan", study.name), columns=["key"]
        ).height
        totals[name] = print_table(
            f"{name}: {judges} judges, {items} items, {designs} planned calls", t
        )
    if not args.no_rerun:
        print("\n### rerun with 0 calls (`judgelab run`, wall incl. ephemeral Prefect)\n")
        print("| study | round | wall s | flow's 'finished in' s | calls made |")
        print("|---|---:|---:|---:|---:|")
        walls: dict[str, list[float]] = {name: [] for name in names}
        for r in range(args.rounds):  # studies interleaved, so load on the machine hits each
            for name in names:
                wall, out = judgelab(root / "data", "run", str(files[name]))
                made = sum(int(n) for n in re.findall(r"(\d+) judge calls made", out))
                flow = re.search(r"finished in (\d+) s", out).group(1)
                walls[name].append(wall)
                print(f"| {name} | {r + 1} | {wall:.1f} | {flow} | {made} |", flush=True)
        print(
            "\nrerun wall (median of rounds): "
            + ", ".join(f"{k} {statistics.median(v):.1f} s" for k, v in walls.items())
        )
    print("\nanalysis totals (median): " + ", ".join(f"{k} {v:.2f} s" for k, v in totals.items()))


if __name__ == "__main__":
    main()
