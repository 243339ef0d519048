"""Both readouts of the embedded judge against the humans: the parsed answer and the expected
score Σ p·v over its distribution on the scale's grid (tasks/judging/distribution.py).

Runs studies/sentiment.toml's design (every prompt level × scale, SmolLM2-135M in llama.cpp)
on a small seeded sample with `readouts = ["answer", "expected"]`, in a temporary data dir,
through `judgelab run`: one set of calls, two readouts. Prints, per readout and scale (means
over the prompt levels' designs): Krippendorff's interval α, MAE and Spearman ρ against the
human means (1–7), and how degenerate the scores are: the SD of the judge's scores over items
and the share of items at the design's most common score. Then says whether the expected
score makes the judge less degenerate. Asserts nothing.

JUDGELAB_DATA_MIRROR=/work/shared/datasets .venv/bin/python bench/bench_readouts.py [--items 20]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

from judgelab.env import apply_defaults

apply_defaults()

import numpy as np  # noqa: E402
import polars as pl  # noqa: E402
from scipy.stats import spearmanr  # noqa: E402

from judgelab.settings import PROJECT_ROOT, Settings  # noqa: E402
from tasks import warehouse  # noqa: E402
from tasks.judging import store  # noqa: E402
from tasks.stats import kripp_alpha  # noqa: E402

BASE = PROJECT_ROOT / "studies" / "sentiment.toml"
NAME = "bench-readouts"
RHO_INFORMATIVE = 0.2  # below it, the scores say next to nothing about how humans rank items


def study_text(items: int) -> str:
    """sentiment.toml's design on `items` texts, both readouts, no baseline, no bootstrap."""
    base = tomllib.loads(BASE.read_text())
    s, (judge,) = base["study"], base["judges"]
    lists = {k: s[k] for k in ("prompt_levels", "scales")}
    return "\n".join(
        [
            "[study]",
            f'name = "{NAME}"',
            f'task = "{s["task"]}"',
            f'benchmark = "{s["benchmark"]}"',
            f"sample_size = {items}",
            f"seed = {s['seed']}",
            *(f"{k} = {v!r}".replace("'", '"') for k, v in lists.items()),
            "",
            "[study.analysis]",
            "bootstrap = 0",
            'readouts = ["answer", "expected"]',
            "",
            "[[judges]]",
            *(f"{k} = {v!r}".replace("'", '"') for k, v in judge.items()),
        ]
    )


def design_rows(per_item: pl.DataFrame) -> pl.DataFrame:
    """One row per design: α, MAE, ρ against the humans and the scores' spread."""
    rows = []
    keys = ["readout", "scale", "prompt_level"]
    for (readout, scale, level), g in per_item.group_by(keys, maintain_order=True):
        j, h = g["score_1to7"].to_numpy(), g["human_1to7"].to_numpy()
        constant = np.ptp(j) == 0
        _, counts = np.unique(np.round(j, 6), return_counts=True)
        rows.append(
            {
                "readout": readout,
                "scale": scale,
                "prompt_level": level,
                "alpha": kripp_alpha(j, h),
                "mae": float(np.mean(np.abs(j - h))),
                "rho": None if constant else float(spearmanr(j, h).statistic),
                "sd": float(np.std(j)),
                "modal_share": float(counts.max() / len(j)),
            }
        )
    return pl.DataFrame(rows)


def _f(x: float | None) -> str:
    return "n/a (constant scores)" if x is None else f"{x:.3f}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=20)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        study = tmp / f"{NAME}.toml"
        study.write_text(study_text(args.items))
        env = {**os.environ, "JUDGELAB_DATA_DIR": str(tmp / "data")}
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "judgelab.cli", "run", str(study)],
            env=env,
            cwd=PROJECT_ROOT,
            check=True,
            capture_output=True,
        )
        seconds = time.perf_counter() - started
        settings = Settings(data_dir=tmp / "data")
        calls = store.read_store(settings.store_dir)
        per_item = warehouse.read_table(settings, "item_scores", NAME)
        metrics = warehouse.read_table(settings, "rating_metrics", NAME)
        components = warehouse.read_table(settings, "variance_components", NAME)
        d_study = warehouse.read_table(settings, "d_study", NAME)
    with_probs = calls["probs"].is_not_null().sum()
    print(
        f"{args.items} items × {metrics['prompt_level'].n_unique()} prompt levels × "
        f"{metrics['scale'].n_unique()} scales: {calls.height} stored calls "
        f"({with_probs} with a distribution) in {seconds:.0f} s, "
        f"{metrics.height} designs (readouts × the calls' designs)"
    )
    designs = design_rows(per_item)
    order = {s: i for i, s in enumerate(tomllib.loads(BASE.read_text())["study"]["scales"])}
    table = (
        designs.group_by("readout", "scale")
        .agg(pl.col("alpha", "mae", "rho", "sd", "modal_share").mean().round(3))
        .sort(pl.col("scale").replace_strict(order), "readout")
    )
    with pl.Config(tbl_hide_dataframe_shape=True, tbl_rows=-1, tbl_width_chars=120):
        print(table)
    pooled = designs.group_by("readout").agg(pl.col("alpha", "rho", "sd", "modal_share").mean())
    a, e = (pooled.filter(readout=r).row(0, named=True) for r in ("answer", "expected"))
    print(
        f"Mean over designs: items at the design's most common score {a['modal_share']:.0%} "
        f"(answer) vs {e['modal_share']:.0%} (expected); score SD over items (1–7) "
        f"{a['sd']:.2f} vs {e['sd']:.2f}; ρ {_f(a['rho'])} vs {_f(e['rho'])}; "
        f"α {_f(a['alpha'])} vs {_f(e['alpha'])}."
    )
    print(verdict(a, e))
    print(readout_as_factor(components, d_study))


def readout_as_factor(components: pl.DataFrame, d_study: pl.DataFrame) -> str:
    """How much of the score variance the readout carries (a design factor like the others:
    sequential eta² and the G-study's share), and what averaging both readouts buys (Eρ² of 1
    vs 2 readouts at one judge, one prompt level, one scale)."""
    share = {
        (m, c): v
        for m, c, v in components.select(
            "method", "component", pl.coalesce("variance_share", "eta_sq")
        ).rows()
    }
    one = d_study.filter(n_judges=1, n_prompt_levels=1, n_scales=1).sort("n_readouts")
    g1, g2 = one["g_relative"].to_list()
    return (
        f"The readout as a variance factor: eta² {share[('type1_anova', 'readout')]:.1%} "
        f"(readout × scale {share[('type1_anova', 'scale:readout')]:.1%}); G-study share "
        f"{share[('random_ems', 'readout')]:.1%} (readout × item "
        f"{share.get(('random_ems', 'readout:item'), 0.0):.1%}); Eρ² of one design "
        f"{_f(g1)} with one readout, {_f(g2)} averaging both."
    )


def verdict(a: dict, e: dict) -> str:
    """Plainly: does the expected score make the judge less degenerate? Degenerate: most
    items get one score, or the scores do not rank the items as the humans do (ρ < 0.2)."""
    ties_broken = e["modal_share"] < a["modal_share"]
    ranks = (e["rho"] or 0.0) >= RHO_INFORMATIVE and (e["rho"] or 0.0) > (a["rho"] or 0.0)
    if ties_broken and ranks:
        return "Yes: the expected score breaks the answer's ties and ranks items like the humans."
    if ties_broken:
        return (
            "Only in form: the expected score breaks the answer's ties (fewer items on one "
            f"value), but it does not rank the items as the humans do (ρ < {RHO_INFORMATIVE}); "
            "a better α or MAE comes from sitting mid-scale, not from reading the texts."
        )
    return "No: the expected score does not make the judge less degenerate."


if __name__ == "__main__":
    main()
