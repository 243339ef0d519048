"""The rating report's figures (tasks/rating/report.py): bias and MAE per design, judges
ranked by α, and what ensembles of designs buy (a Polars frame in, a matplotlib figure out)."""

from __future__ import annotations

import math

import matplotlib
import numpy as np
import polars as pl
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from tasks.report.plotting import (
    MARKERS,
    OUTSIDE,
    PALETTE,
    as_float,
    error_bars,
    finite_rows,
    n_range,
    new_figure,
    ordered,
    study_rows,
    styled,
)

# 20 steps: few enough that the colour bar stays vector (matplotlib rasterizes ≥ 50 steps)
ALPHA_CMAP = matplotlib.colormaps["viridis"].resampled(20)


@styled
def _readout_in_judge(frame: pl.DataFrame) -> pl.DataFrame:
    """A judge read out other than by its answer is drawn as a judge of its own,
    "<judge> (expected)": each readout a series, as the tables list them (frames before
    readouts existed have no readout column)."""
    if "readout" not in frame.columns:
        return frame
    other = pl.col("readout").fill_null("answer") != "answer"
    label = pl.concat_str(pl.col("judge"), pl.lit(" ("), pl.col("readout"), pl.lit(")"))
    return frame.with_columns(pl.when(other).then(label).otherwise(pl.col("judge")).alias("judge"))


def rating_performance(frame: pl.DataFrame) -> Figure | None:
    """Figure 3 analogue: bias and MAE (1–7) with 95% CIs per scale, one row per task; each
    judge a colour, each prompt level a marker; baselines at the right; the human rater's MAE
    dashed."""
    frame = _readout_in_judge(finite_rows(frame, "bias", "mae"))
    if frame.is_empty():
        return None
    studies, height = study_rows(frame, 2.6, extra=1.0)
    fig = new_figure(height)
    axes = fig.subplots(len(studies), 2, squeeze=False)
    judges = ordered(frame.filter(pl.col("kind") == "judge"), "judge")
    levels = ordered(frame.filter(pl.col("kind") == "judge"), "prompt_level")
    color = {j: PALETTE[i % len(PALETTE)] for i, j in enumerate(judges)}
    marker = {p: MARKERS[i % len(MARKERS)] for i, p in enumerate(levels)}
    for row, study in enumerate(studies):
        part = frame.filter(pl.col("study") == study)
        rated = part.filter(pl.col("kind") == "judge")
        base = part.filter(pl.col("kind") != "judge")
        scales = ordered(rated, "scale")
        groups = scales + [f"{j}\n({k})" for j, k in base.select("judge", "kind").iter_rows()]
        rows = [rated.filter(pl.col("scale") == g) for g in scales] + list(base.iter_slices(1))
        ticks = [f"{g}\n{n_range(r)}" for g, r in zip(groups, rows, strict=True)]
        series = rated.select("judge", "prompt_level").unique(maintain_order=True).rows()
        width = 0.7 / max(1, len(series))
        for col, (metric, title) in enumerate([("bias", "bias (judge − human)"), ("mae", "MAE")]):
            ax = axes[row][col]
            for k, (judge, level) in enumerate(series):
                cell = rated.filter((pl.col("judge") == judge) & (pl.col("prompt_level") == level))
                x = (
                    np.array([groups.index(s) for s in cell["scale"]])
                    + (k - (len(series) - 1) / 2) * width
                )
                ax.errorbar(
                    x,
                    cell[metric].to_numpy(),
                    yerr=error_bars(
                        cell[metric].to_list(),
                        cell[f"{metric}_lo"].to_list(),
                        cell[f"{metric}_hi"].to_list(),
                    ),
                    fmt=marker[level],
                    color=color[judge],
                    ms=5,
                    capsize=2,
                    lw=1,
                )
            for i, r in enumerate(base.iter_rows(named=True)):
                x = len(groups) - base.height + i
                ax.errorbar(
                    [x],
                    [r[metric]],
                    yerr=error_bars([r[metric]], [r[f"{metric}_lo"]], [r[f"{metric}_hi"]]),
                    fmt="o",
                    mfc="white",
                    color="#555555",
                    ms=5,
                    capsize=2,
                    lw=1,
                )
            if metric == "bias":
                ax.axhline(0, color="#333333", lw=0.8)
            else:
                human = part["human_mae"].drop_nulls()
                if human.len():
                    ax.axhline(human[0], color="#333333", lw=0.9, ls="--")
                    ax.annotate(
                        "one human rater",
                        (1, human[0]),
                        xycoords=("axes fraction", "data"),
                        ha="right",
                        va="bottom",
                        fontsize=7,
                        color="#333333",
                    )
                ax.set_ylim(bottom=0)
            ax.set_xticks(range(len(groups)), ticks)
            ax.set_xlim(-0.6, len(groups) - 0.4)
            ax.grid(axis="x", visible=False)
            ax.set_title(f"{study}: {title}", loc="left")
            ax.set_ylabel(f"{metric} on 1–7")
    # judges by colour, prompt levels by black marker shape, baselines as open grey circles
    # at the right: labelled "judge ·", "prompt ·" and "classifier baseline", so the prompt
    # level "base" never stands beside a marker called "baseline"
    handles = [
        Line2D([], [], color=color[j], marker="o", ls="", label=f"judge · {j}") for j in judges
    ]
    handles += [
        Line2D([], [], color="black", marker=marker[p], ls="", label=f"prompt · {p}")
        for p in levels
    ]
    if (frame["kind"] != "judge").any():
        handles += [
            Line2D(
                [], [], color="#555555", marker="o", mfc="white", ls="", label="classifier baseline"
            )
        ]
    fig.legend(
        handles=handles, loc="outside lower center", ncol=min(8, len(handles)), frameon=False
    )
    return fig


@styled
def judge_ranking(frame: pl.DataFrame) -> Figure | None:
    """Figure 4 analogue: α against humans per judge (rows) in each prompt × scale cell
    (columns); the number is the judge's rank within its cell."""
    frame = _readout_in_judge(finite_rows(frame, "kripp_alpha"))
    if frame.is_empty():
        return None
    studies = ordered(frame, "study")
    heights = [max(1, frame.filter(pl.col("study") == s)["judge"].n_unique()) for s in studies]
    fig = new_figure(0.9 + sum(0.45 * h + 0.7 for h in heights))
    axes = fig.subplots(len(studies), 1, squeeze=False, height_ratios=[h + 1.5 for h in heights])
    lo = min(0.0, float(frame["kripp_alpha"].min()))
    image = None
    for ax, study in zip((a[0] for a in axes), studies, strict=True):
        part = frame.filter(pl.col("study") == study)
        judges = ordered(part, "judge")
        cells = part.select("prompt_level", "scale").unique(maintain_order=True).rows()
        grid = np.full((len(judges), len(cells)), np.nan)
        for r in part.iter_rows(named=True):
            i, j = judges.index(r["judge"]), cells.index((r["prompt_level"], r["scale"]))
            grid[i, j] = r["kripp_alpha"]
            text = f"#{r['rank']}\n{r['kripp_alpha']:.2f}" if r["rank"] is not None else "–"
            ax.text(
                j,
                i,
                text,
                ha="center",
                va="center",
                fontsize=7,
                color="white" if r["kripp_alpha"] < lo + 0.55 * (1 - lo) else "black",
            )
        # pcolormesh, not imshow: cells stay vector shapes instead of an embedded bitmap
        image = ax.pcolormesh(
            np.arange(len(cells) + 1) - 0.5,
            np.arange(len(judges) + 1) - 0.5,
            np.ma.masked_invalid(grid),
            cmap=ALPHA_CMAP,
            vmin=lo,
            vmax=1,
            edgecolors="white",
            linewidth=1.5,
        )
        ax.set_ylim(len(judges) - 0.5, -0.5)  # first judge on top, as in the view
        ax.set_yticks(range(len(judges)), judges)
        ax.set_xticks(range(len(cells)), [f"{p}\n{s}" for p, s in cells])
        ax.grid(visible=False)
        ax.set_facecolor("#EEEEEE")
        ax.set_title(f"{study}: rank by Krippendorff's α against humans", loc="left")
        for side in ("left", "bottom"):
            ax.spines[side].set_visible(False)
    fig.colorbar(image, ax=[a[0] for a in axes], label="α", shrink=0.8, pad=0.01)
    return fig


def _strategy_label(strategy: str) -> str:
    return {
        "model_free": "Model (Free)",
        "model_fixed": "Model (Fixed)",
        "scale": "Scale",
        "prompt": "Prompt",
    }.get(strategy, strategy)


JUDGES_POOL = "judges"  # members are LLM judge designs only (P1 D.3)


def _pooled(frame: pl.DataFrame) -> pl.DataFrame:
    """The frame with its `pool` column (a view without one holds judge ensembles only)."""
    return frame if "pool" in frame.columns else frame.with_columns(pool=pl.lit(JUDGES_POOL))


def _by_subset(frame: pl.DataFrame) -> pl.DataFrame:
    """The frame with a subset other than "all" (e.g. "without bipolar3") in its panel's name."""
    if "subset" not in frame.columns:
        return frame
    other = pl.col("subset").is_not_null() & (pl.col("subset") != "all")
    study = pl.when(other).then(pl.format("{} · {}", "study", "subset")).otherwise("study")
    return frame.with_columns(study.alias("study"))


def _pool_label(strategy: str, pool: str, sep: str = " ") -> str:
    """A strategy's label, marking ensembles that may include classifier baselines."""
    return _strategy_label(strategy) + ("" if pool == JUDGES_POOL else f"{sep}+ baselines")


@styled
def ensembles(frame: pl.DataFrame) -> Figure | None:
    """Figure 5 analogue: how much averaging three judge designs cuts |bias| and MAE, per
    strategy; a strategy the study cannot fill says so. Ensembles that may include baselines
    (pool judges+baselines) are separate, hatched bars; triples without the outlier scale
    (subset "without <scale>") are a panel of their own, as the paper's third panel."""
    if finite_rows(frame, "bias_reduction_pct").is_empty():
        return None
    frame = _by_subset(_pooled(frame))
    studies, height = study_rows(frame, 2.4, extra=0.6)
    fig = new_figure(height)
    axes = fig.subplots(len(studies), 1, squeeze=False)
    for ax, study in zip((a[0] for a in axes), studies, strict=True):
        part = frame.filter(pl.col("study") == study)
        x = np.arange(part.height)
        bias = np.array([as_float(v) for v in part["bias_reduction_pct"]])
        mae = np.array([as_float(v) for v in part["mae_reduction_pct"]])
        hatch = ["" if p == JUDGES_POOL else "//" for p in part["pool"]]
        b1 = ax.bar(x - 0.18, np.nan_to_num(bias), 0.36, color=PALETTE[0], label="|bias| cut")
        b2 = ax.bar(x + 0.18, np.nan_to_num(mae), 0.36, color=PALETTE[1], label="MAE cut")
        for bars, values in ((b1, bias), (b2, mae)):
            for patch, h in zip(bars, hatch, strict=True):
                patch.set_hatch(h)
            ax.bar_label(
                bars,
                [("" if math.isnan(v) else f"{v:.0f}%") for v in values],
                padding=2,
                fontsize=7,
            )
        for i, r in enumerate(part.iter_rows(named=True)):
            if not r["n_evaluated"]:
                ax.text(
                    i,
                    0,
                    "no ensemble\npossible",
                    ha="center",
                    va="bottom",
                    fontsize=7,
                    color="#555555",
                )
        ax.axhline(0, color="#333333", lw=0.8)
        ax.set_xticks(
            x,
            [
                _pool_label(s, p, sep="\n") + f"\n(n={n})"
                for s, p, n in part.select("strategy", "pool", "n_evaluated").iter_rows()
            ],
        )
        ax.set_ylabel("reduction vs members, %")
        ax.margins(y=0.15)
        ax.grid(axis="x", visible=False)
        mixed = "; hatched: baselines may join" if (part["pool"] != JUDGES_POOL).any() else ""
        ax.set_title(f"{study}: ensembles of three judge designs{mixed}", loc="left")
        ax.legend(**OUTSIDE, frameon=False)
    return fig


@styled
def ensemble_size(frame: pl.DataFrame) -> Figure | None:
    """Figure 6 analogue: ensemble |bias| and MAE as the ensemble grows from 1 (the single
    designs) to 5 judges; ensembles that may include baselines are a separate dashed series."""
    frame = finite_rows(frame, "ensemble_abs_bias")
    if frame.is_empty():
        return None
    frame = _pooled(frame)
    studies, height = study_rows(frame, 2.4, extra=0.6)
    fig = new_figure(height)
    axes = fig.subplots(len(studies), 2, squeeze=False)
    for row, study in enumerate(studies):
        part = frame.filter(pl.col("study") == study)
        series = list(part.select("pool", "strategy").unique(maintain_order=True).iter_rows())
        for col, (metric, title) in enumerate(
            [("ensemble_abs_bias", "mean |bias|"), ("ensemble_mae", "MAE")]
        ):
            ax = axes[row][col]
            for k, (pool, strategy) in enumerate(series):
                line = part.filter((pl.col("pool") == pool) & (pl.col("strategy") == strategy))
                ax.plot(
                    line["size"],
                    line[metric],
                    marker=MARKERS[k % len(MARKERS)],
                    color=PALETTE[k % len(PALETTE)],
                    linestyle="-" if pool == JUDGES_POOL else "--",
                    label=_pool_label(strategy, pool),
                )
                counted = line.select(
                    "size",
                    metric,
                    pl.col("n_evaluated") if "n_evaluated" in line.columns else pl.lit(None),
                )
                for x, y, n in counted.iter_rows():
                    if y is not None and n:
                        ax.annotate(
                            f"n={n}", (x, y), xytext=(3, 3), textcoords="offset points", fontsize=6
                        )
            ax.set_xticks(range(1, 6))
            ax.set_xlim(0.7, 5.3)
            ax.set_ylim(bottom=0)
            ax.set_xlabel("judges in the ensemble (1 = single designs)")
            ax.set_ylabel(f"{title} on 1–7")
            ax.set_title(f"{study}: {title}", loc="left")
            if col == 1:  # one legend per row, beside it: inside, it covered points
                ax.legend(**OUTSIDE, frameon=False)
    return fig
