"""Report figures: one pure function per view, a Polars frame in, a matplotlib figure out.

A function returns None when its frame holds nothing to draw (no rows, or only nulls), so the
page can say so in one line instead of showing empty axes. `to_svg` turns a figure into an
inline <svg> element; nothing here reads or writes files.
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Callable
from functools import wraps

import matplotlib
import numpy as np
import polars as pl
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from tasks.report.panel import Draw

# text as paths: the SVG needs no font on the reader's machine
STYLE = {
    "svg.fonttype": "path",
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.labelsize": 9,
    "legend.fontsize": 8,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.axisbelow": True,
}
# Okabe–Ito: distinguishable with the common colour-vision deficiencies
PALETTE = (
    "#0072B2",
    "#E69F00",
    "#009E73",
    "#CC79A7",
    "#56B4E9",
    "#D55E00",
    "#F0E442",
    "#000000",
)
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
WIDTH = 10.0  # inches; the page scales the SVG to its column
STATUS_COLORS = {
    "ok": "#009E73",
    "unparseable": "#E69F00",
    "out_of_range": "#CC79A7",
    "error": "#D55E00",
    "missing": "#BBBBBB",
}
SUBSET_COLORS = {"all": "#000000", "full": "#0072B2", "near": "#56B4E9", "ambiguous": "#E69F00"}
SUBSET_N = {"all": "n_scored", "full": "n_full", "near": "n_near", "ambiguous": "n_ambiguous"}
# 20 steps: few enough that the colour bar stays vector (matplotlib rasterizes ≥ 50 steps)
ALPHA_CMAP = matplotlib.colormaps["viridis"].resampled(20)
# an axes legend to the right of its axes (constrained layout makes room for it)
OUTSIDE = {"loc": "upper left", "bbox_to_anchor": (1.01, 1.0)}
CHECKS = ("facts", "length", "direction", "mtld", "similarity", "words")


def styled(fn: Callable[..., Figure | None]) -> Callable[..., Figure | None]:
    """Draw inside the report's rc settings without touching the global ones."""

    @wraps(fn)
    def inner(*args, **kwargs) -> Figure | None:
        with matplotlib.rc_context(STYLE):
            return fn(*args, **kwargs)

    return inner


def new_figure(height: float, width: float = WIDTH) -> Figure:
    """A figure on the Agg canvas, laid out by matplotlib (constrained), no pyplot state."""
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def render(draw: Draw, table: pl.DataFrame, prefix: str) -> str | None:
    """Draw `table` and write the figure as SVG (None: `draw` drew nothing)."""
    fig = draw(table)
    return to_svg(fig, prefix) if fig is not None else None


def to_svg(fig: Figure, prefix: str) -> str:
    """The figure as one inline <svg> element whose ids all start with `prefix`, so several
    figures on one page never share an id; scaled to the page width by CSS."""
    buf = io.StringIO()
    with matplotlib.rc_context({**STYLE, "svg.hashsalt": prefix}):
        fig.savefig(buf, format="svg", metadata={"Date": None})
    svg = buf.getvalue()
    svg = svg[svg.index("<svg") :]  # drop the XML declaration and doctype
    svg = re.sub(r"<metadata>.*?</metadata>\s*", "", svg, count=1, flags=re.S)
    ids = set(re.findall(r'\bid="([^"]+)"', svg))
    if ids:
        pattern = "|".join(re.escape(i) for i in sorted(ids, key=len, reverse=True))
        svg = re.sub(rf'\bid="({pattern})"', rf'id="{prefix}-\1"', svg)
        svg = re.sub(rf"#({pattern})\b(?=[\"')])", rf"#{prefix}-\1", svg)
    width = re.search(r'<svg[^>]*?\swidth="([\d.]+)pt"', svg)
    svg = re.sub(r'(<svg[^>]*?)\swidth="[\d.]+pt"\s+height="[\d.]+pt"', r"\1", svg, count=1)
    max_width = f"max-width:{width.group(1)}pt;" if width else ""
    return svg.replace("<svg", f'<svg role="img" style="width:100%;height:auto;{max_width}"', 1)


def _ordered(frame: pl.DataFrame, column: str) -> list:
    """Distinct values in the order the view sorts them."""
    return frame[column].unique(maintain_order=True).to_list()


def _num(value: object) -> float:
    return math.nan if value is None else float(value)


def _finite(frame: pl.DataFrame, *columns: str) -> pl.DataFrame:
    """Rows with a real number in every one of `columns`."""
    return frame.filter(
        pl.all_horizontal(
            pl.col(c).cast(pl.Float64).is_not_null() & pl.col(c).cast(pl.Float64).is_not_nan()
            for c in columns
        )
    )


def _yerr(values: list[float], lo: list[float], hi: list[float]) -> np.ndarray:
    """Asymmetric error bars from CI bounds; a missing bound draws no bar."""
    v, lo_, hi_ = (np.array([_num(x) for x in xs]) for xs in (values, lo, hi))
    return np.nan_to_num(np.vstack([v - lo_, hi_ - v]), nan=0.0).clip(min=0)


def _study_rows(frame: pl.DataFrame, per_row: float, extra: float = 0.8) -> tuple[list, float]:
    studies = _ordered(frame, "study")
    return studies, extra + per_row * len(studies)


@styled
def call_outcomes(frame: pl.DataFrame) -> Figure | None:
    """Stacked bars: planned calls per study × judge, split by the stored status."""
    if frame.is_empty():
        return None
    labels = [f"{s} · {j}" for s, j in frame.select("study", "judge").iter_rows()]
    statuses = [s for s in STATUS_COLORS if s in frame.columns and frame[s].sum() > 0]
    fig = new_figure(0.8 + 0.32 * len(labels))
    ax = fig.add_subplot()
    y = np.arange(len(labels))
    left = np.zeros(len(labels))
    for status in statuses:
        counts = frame[status].fill_null(0).to_numpy().astype(float)
        ax.barh(y, counts, left=left, color=STATUS_COLORS[status], label=status, height=0.6)
        left += counts
    for i, total in enumerate(left):
        ax.annotate(
            f"n={total:.0f}",
            (total, i),
            xytext=(3, 0),
            textcoords="offset points",
            va="center",
            fontsize=7,
        )
    ax.set_xlim(0, max(1.0, float(left.max())) * 1.12)
    ax.set_yticks(y, labels)
    ax.invert_yaxis()
    ax.set_xlabel("planned judge calls")
    ax.grid(axis="y", visible=False)
    ax.legend(**OUTSIDE, title="status", frameon=False)
    return fig


@styled
def rating_performance(frame: pl.DataFrame) -> Figure | None:
    """Figure 3 analogue: bias and MAE (1–7) with 95% CIs per scale, one row per task; each
    judge a colour, each prompt level a marker; baselines at the right; the human rater's MAE
    dashed."""
    frame = _finite(frame, "bias", "mae")
    if frame.is_empty():
        return None
    studies, height = _study_rows(frame, 2.6, extra=1.0)
    fig = new_figure(height)
    axes = fig.subplots(len(studies), 2, squeeze=False)
    judges = _ordered(frame.filter(pl.col("kind") == "judge"), "judge")
    levels = _ordered(frame.filter(pl.col("kind") == "judge"), "prompt_level")
    color = {j: PALETTE[i % len(PALETTE)] for i, j in enumerate(judges)}
    marker = {p: MARKERS[i % len(MARKERS)] for i, p in enumerate(levels)}
    for row, study in enumerate(studies):
        part = frame.filter(pl.col("study") == study)
        rated = part.filter(pl.col("kind") == "judge")
        base = part.filter(pl.col("kind") != "judge")
        scales = _ordered(rated, "scale")
        groups = scales + [f"{j}\n({k})" for j, k in base.select("judge", "kind").iter_rows()]
        rows = [rated.filter(pl.col("scale") == g) for g in scales] + list(base.iter_slices(1))
        ticks = [f"{g}\n{_n_range(r)}" for g, r in zip(groups, rows, strict=True)]
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
                    yerr=_yerr(
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
                    yerr=_yerr([r[metric]], [r[f"{metric}_lo"]], [r[f"{metric}_hi"]]),
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


def _n_range(frame: pl.DataFrame) -> str:
    """The items behind a group of points: `n=30`, or `n=28–30` when they differ."""
    ns = frame["n_items"].drop_nulls() if "n_items" in frame.columns else pl.Series([], dtype=int)
    if ns.is_empty():
        return "n=?"
    lo, hi = int(ns.min()), int(ns.max())
    return f"n={lo}" if lo == hi else f"n={lo}–{hi}"


@styled
def judge_ranking(frame: pl.DataFrame) -> Figure | None:
    """Figure 4 analogue: α against humans per judge (rows) in each prompt × scale cell
    (columns); the number is the judge's rank within its cell."""
    frame = _finite(frame, "kripp_alpha")
    if frame.is_empty():
        return None
    studies = _ordered(frame, "study")
    heights = [max(1, frame.filter(pl.col("study") == s)["judge"].n_unique()) for s in studies]
    fig = new_figure(0.9 + sum(0.45 * h + 0.7 for h in heights))
    axes = fig.subplots(len(studies), 1, squeeze=False, height_ratios=[h + 1.5 for h in heights])
    lo = min(0.0, float(frame["kripp_alpha"].min()))
    image = None
    for ax, study in zip((a[0] for a in axes), studies, strict=True):
        part = frame.filter(pl.col("study") == study)
        judges = _ordered(part, "judge")
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
    if _finite(frame, "bias_reduction_pct").is_empty():
        return None
    frame = _by_subset(_pooled(frame))
    studies, height = _study_rows(frame, 2.4, extra=0.6)
    fig = new_figure(height)
    axes = fig.subplots(len(studies), 1, squeeze=False)
    for ax, study in zip((a[0] for a in axes), studies, strict=True):
        part = frame.filter(pl.col("study") == study)
        x = np.arange(part.height)
        bias = np.array([_num(v) for v in part["bias_reduction_pct"]])
        mae = np.array([_num(v) for v in part["mae_reduction_pct"]])
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
        ax.legend(loc="upper right", frameon=False)
    return fig


@styled
def ensemble_size(frame: pl.DataFrame) -> Figure | None:
    """Figure 6 analogue: ensemble |bias| and MAE as the ensemble grows from 1 (the single
    designs) to 5 judges; ensembles that may include baselines are a separate dashed series."""
    frame = _finite(frame, "ensemble_abs_bias")
    if frame.is_empty():
        return None
    frame = _pooled(frame)
    studies, height = _study_rows(frame, 2.4, extra=0.6)
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
            ax.legend(loc="best", frameon=False)
    return fig


def _errors(part: pl.DataFrame) -> list:
    """A design's wrong verdicts (false TRUEs + false FALSEs): the n behind its leniency."""
    if not {"fp", "fn"} <= set(part.columns):
        return ["?"] * part.height
    return (part["fp"].fill_null(0) + part["fn"].fill_null(0)).to_list()


def _design_label(judge: str, level: str, effort: str | None, show_effort: bool) -> str:
    return f"{judge} · {level}" + (f" · {effort}" if show_effort and effort else "")


@styled
def accuracy_by_design(frame: pl.DataFrame) -> Figure | None:
    """Tables 13–14 analogue: accuracy per design on all items and each consensus subset,
    beside its leniency (share of errors that are false TRUEs)."""
    frame = _finite(frame, "acc_pct")
    if frame.is_empty():
        return None
    studies = _ordered(frame, "study")
    sizes = [frame.filter(pl.col("study") == s).height for s in studies]
    fig = new_figure(0.9 + sum(0.42 * n + 0.8 for n in sizes))
    axes = fig.subplots(
        len(studies), 2, squeeze=False, width_ratios=[2.2, 1], height_ratios=[n + 2 for n in sizes]
    )
    subsets = [
        ("all", "acc_pct"),
        ("full", "acc_full_pct"),
        ("near", "acc_near_pct"),
        ("ambiguous", "acc_ambiguous_pct"),
    ]
    for row, study in enumerate(studies):
        part = frame.filter(pl.col("study") == study)
        show_effort = part["reasoning_effort"].n_unique() > 1
        labels = [
            _design_label(j, p, e, show_effort)
            for j, p, e in part.select("judge", "prompt_level", "reasoning_effort").iter_rows()
        ]
        y = np.arange(len(labels))
        ax, lax = axes[row]
        h = 0.8 / len(subsets)
        for k, (subset, column) in enumerate(subsets):
            values = np.array([_num(v) for v in part[column]])
            bars = ax.barh(
                y + (k - 1.5) * h,
                np.nan_to_num(values),
                h,
                color=SUBSET_COLORS[subset],
                label=subset,
            )
            counts = part[SUBSET_N[subset]] if SUBSET_N[subset] in part.columns else None
            if counts is not None:
                ax.bar_label(
                    bars,
                    [
                        "" if math.isnan(v) else f"n={n}"
                        for v, n in zip(values, counts, strict=True)
                    ],
                    padding=2,
                    fontsize=6,
                )
        ax.set_yticks(y, labels)
        ax.invert_yaxis()
        ax.set_xlim(0, 115)
        ax.set_xticks([0, 25, 50, 75, 100])
        ax.set_xlabel("accuracy, %")
        ax.grid(axis="y", visible=False)
        ax.set_title(f"{study}: accuracy by subset", loc="left")
        ax.legend(**OUTSIDE, frameon=False, title="items\n(no bar: none)")
        leniency = np.array([_num(v) for v in part["leniency_pct"]])
        bars = lax.barh(y, np.nan_to_num(leniency), 0.6, color=PALETTE[5])
        lax.bar_label(
            bars,
            [
                "no errors" if math.isnan(v) else f"{v:.0f}% (n={e})"
                for v, e in zip(leniency, _errors(part), strict=True)
            ],
            padding=2,
            fontsize=7,
        )
        lax.set_yticks(y, [""] * len(y))
        lax.invert_yaxis()
        lax.set_xlim(0, 125)
        lax.set_xticks([0, 25, 50, 75, 100])
        lax.set_xlabel("leniency: false TRUEs / errors, %")
        lax.grid(axis="y", visible=False)
        lax.set_title("leniency", loc="left")
    return fig


@styled
def switch_rates(frame: pl.DataFrame) -> Figure | None:
    """Switch rates of Tables 14–16, per judge on all items: verdicts an in-context prompt turns
    wrong → right (right of 0) and right → wrong (left of 0) against the same judge's base
    prompt."""
    frame = _finite(
        frame.filter(pl.col("subset") == "all"),
        "wrong_to_right_pct",
        "right_to_wrong_pct",
        "net_change_pct",
    )
    if frame.is_empty():
        return None
    studies = _ordered(frame, "study")
    sizes = [frame.filter(pl.col("study") == s).height for s in studies]
    fig = new_figure(0.9 + sum(0.35 * n + 0.8 for n in sizes))
    axes = fig.subplots(len(studies), 1, squeeze=False, height_ratios=[n + 2 for n in sizes])
    for ax, study in zip((a[0] for a in axes), studies, strict=True):
        part = frame.filter(pl.col("study") == study)
        show_effort = part["reasoning_effort"].n_unique() > 1
        labels = [
            _design_label(j, f"{p} vs base", e, show_effort) + f" (n={n})"
            for j, p, e, n in part.select(
                "judge", "prompt_level", "reasoning_effort", "n_items"
            ).iter_rows()
        ]
        y = np.arange(len(labels))
        gain = part["wrong_to_right_pct"].to_numpy()
        loss = part["right_to_wrong_pct"].to_numpy()
        b1 = ax.barh(y, gain, 0.6, color=PALETTE[2], label="wrong → right")
        b2 = ax.barh(y, -loss, 0.6, color=PALETTE[5], label="right → wrong")
        ax.bar_label(b1, [f"{v:.1f}" for v in gain], padding=2, fontsize=7)
        ax.bar_label(b2, [f"{v:.1f}" for v in loss], padding=2, fontsize=7)
        ax.scatter(
            part["net_change_pct"],
            y,
            marker="|",
            s=200,
            color="black",
            zorder=3,
            label="net change",
        )
        ax.axvline(0, color="#333333", lw=0.8)
        ax.set_yticks(y, labels)
        ax.invert_yaxis()
        reach = max(5.0, float(np.nanmax(np.abs(np.concatenate([gain, loss])))) * 1.3)
        ax.set_xlim(-reach, reach)
        ax.set_xlabel("% of items both designs resolved")
        ax.grid(axis="y", visible=False)
        ax.set_title(f"{study}: verdicts switched by the prompt", loc="left")
        ax.legend(**OUTSIDE, frameon=False)
    return fig


def _tone_groups(frame: pl.DataFrame) -> list[tuple]:
    return (
        frame.select("judge", "prompt_level", "rewriter", "axis").unique(maintain_order=True).rows()
    )


def _tone_label(group: tuple, frame: pl.DataFrame) -> str:
    """judge · prompt level, plus rewriter and axis only when the study has several."""
    judge, level, rewriter, axis = group
    parts = [judge, level]
    if frame["rewriter"].n_unique() > 1:
        parts.append(rewriter)
    if frame["axis"].n_unique() > 1:
        parts.append(axis)
    return "\n".join([" · ".join(parts[:2]), *([" · ".join(parts[2:])] if parts[2:] else [])])


def _tone_filter(group: tuple) -> pl.Expr:
    return pl.all_horizontal(
        pl.col(c) == v
        for c, v in zip(("judge", "prompt_level", "rewriter", "axis"), group, strict=True)
    )


@styled
def tone_per_text(frame: pl.DataFrame) -> Figure | None:
    """Per-text gaps A − B as points over a box per judge × prompt level."""
    frame = _finite(frame, "gap")
    if frame.is_empty():
        return None
    studies, height = _study_rows(frame, 2.8, extra=0.4)
    fig = new_figure(height)
    axes = fig.subplots(len(studies), 1, squeeze=False)
    rng = np.random.default_rng(0)  # fixed jitter: the same data draws the same picture
    for ax, study in zip((a[0] for a in axes), studies, strict=True):
        part = frame.filter(pl.col("study") == study)
        groups = _tone_groups(part)
        data = [part.filter(_tone_filter(g))["gap"].to_numpy() for g in groups]
        ax.boxplot(
            data,
            positions=range(len(groups)),
            widths=0.5,
            showfliers=False,
            medianprops={"color": "black"},
            boxprops={"color": "#777777"},
            whiskerprops={"color": "#777777"},
            capprops={"color": "#777777"},
        )
        judges = _ordered(part, "judge")
        for i, (g, values) in enumerate(zip(groups, data, strict=True)):
            ax.scatter(
                i + rng.uniform(-0.15, 0.15, len(values)),
                values,
                s=14,
                alpha=0.8,
                color=PALETTE[judges.index(g[0]) % len(PALETTE)],
                zorder=3,
            )
        ax.axhline(0, color="#333333", lw=0.8)
        ax.set_xticks(
            range(len(groups)),
            [f"{_tone_label(g, part)}\n(n={len(v)})" for g, v in zip(groups, data, strict=True)],
        )
        ax.set_ylabel("gap A − B per text (1–10)")
        ax.grid(axis="x", visible=False)
        ax.set_title(f"{study}: per-text tone gap", loc="left")
    return fig


@styled
def tone_gaps(frame: pl.DataFrame) -> Figure | None:
    """Win ratio (texts A > B per text B > A) and accept/reject flips at the task's threshold,
    per judge × prompt level."""
    if frame.filter(pl.col("n_texts") > 0).is_empty():
        return None
    studies, height = _study_rows(frame, 2.8, extra=0.4)
    fig = new_figure(height)
    axes = fig.subplots(len(studies), 2, squeeze=False)
    for row, study in enumerate(studies):
        part = frame.filter(pl.col("study") == study)
        labels = [
            f"{_tone_label(g, part)}\n(n={n})"
            for g, n in zip(_tone_groups(part), part["n_texts"], strict=True)
        ]
        x = np.arange(part.height)
        ax, fax = axes[row]
        ratios = [_num(v) for v in part["win_ratio"]]
        top = max([2.0, *(v for v in ratios if not math.isnan(v))]) * 1.25
        notes = []
        for r, v in zip(part.iter_rows(named=True), ratios, strict=True):
            if not math.isnan(v):
                notes.append(f"{v:.2f}")
            elif r["n_a_wins"]:
                notes.append("B never\nwins")
            else:
                notes.append("no wins")
        heights = [
            top if (math.isnan(v) and r["n_a_wins"]) else np.nan_to_num(v)
            for v, r in zip(ratios, part.iter_rows(named=True), strict=True)
        ]
        bars = ax.bar(
            x, heights, 0.6, color=[PALETTE[0] if not math.isnan(v) else "#9ecae1" for v in ratios]
        )
        ax.bar_label(bars, notes, padding=2, fontsize=7)
        ax.axhline(1, color="#333333", lw=0.8, ls="--")
        ax.set_ylim(0, top * 1.3)
        ax.set_xticks(x, labels)
        ax.set_ylabel("win ratio A : B")
        ax.grid(axis="x", visible=False)
        ax.set_title(f"{study}: win ratio (1 = no preference)", loc="left")
        a = np.array([_num(v) for v in part["flip_a_pass_pct"]])
        b = np.array([_num(v) for v in part["flip_b_pass_pct"]])
        b1 = fax.bar(x - 0.18, np.nan_to_num(a), 0.36, color=PALETTE[1], label="only A passes")
        b2 = fax.bar(x + 0.18, np.nan_to_num(b), 0.36, color=PALETTE[4], label="only B passes")
        fax.bar_label(b1, fmt="%.0f", padding=2, fontsize=7)
        fax.bar_label(b2, fmt="%.0f", padding=2, fontsize=7)
        thresholds = part["threshold"].drop_nulls().unique().to_list()
        at = f" at ≥ {thresholds[0]:g}" if len(thresholds) == 1 else ""
        fax.set_xticks(x, labels)
        fax.set_ylim(0, max(10.0, float(np.nanmax(np.concatenate([a, b, [0]])))) * 1.3)
        fax.set_ylabel("% of texts")
        fax.grid(axis="x", visible=False)
        fax.set_title(f"verdict flips{at}", loc="left")
        fax.legend(**OUTSIDE, frameon=False)
    return fig


@styled
def tone_flips(frame: pl.DataFrame) -> Figure | None:
    """Net flips (only A passes − only B passes, % of texts) at every pass mark."""
    frame = _finite(frame, "net_flip_pct")
    if frame.is_empty():
        return None
    studies, height = _study_rows(frame, 2.6, extra=0.4)
    fig = new_figure(height)
    axes = fig.subplots(len(studies), 1, squeeze=False)
    for ax, study in zip((a[0] for a in axes), studies, strict=True):
        part = frame.filter(pl.col("study") == study)
        judges = _ordered(part, "judge")
        levels = _ordered(part, "prompt_level")
        styles = ("-", "--", ":", "-.")
        for g in _tone_groups(part):
            line = part.filter(_tone_filter(g)).sort("threshold")
            ax.plot(
                line["threshold"],
                line["net_flip_pct"],
                color=PALETTE[judges.index(g[0]) % len(PALETTE)],
                ls=styles[levels.index(g[1]) % len(styles)],
                marker=MARKERS[levels.index(g[1]) % len(MARKERS)],
                ms=4,
                label=_tone_label(g, part).replace("\n", " · ") + f" (n={line['n_texts'].max()})",
            )
        ax.axhline(0, color="#333333", lw=0.8)
        ax.set_xlabel("pass mark (overall score ≥)")
        ax.set_ylabel("net flips, % of texts")
        ax.set_title(f"{study}: verdicts bought by tone, by pass mark", loc="left")
        ax.legend(**OUTSIDE, frameon=False)
    return fig


@styled
def rewrite_pass_rates(frame: pl.DataFrame) -> Figure | None:
    """Share of rewrites passing every check, and how many fail each check."""
    if frame.filter(pl.col("n_versions") > 0).is_empty():
        return None
    studies = _ordered(frame, "study")
    sizes = [frame.filter(pl.col("study") == s).height for s in studies]
    fig = new_figure(0.9 + sum(0.4 * n + 0.8 for n in sizes))
    axes = fig.subplots(len(studies), 2, squeeze=False, height_ratios=[n + 2 for n in sizes])
    for row, study in enumerate(studies):
        part = frame.filter(pl.col("study") == study)
        labels = [f"{r} · {a} · {p}" for r, a, p in part.select("rewriter", "axis", "pole").rows()]
        y = np.arange(len(labels))
        ax, cax = axes[row]
        bars = ax.barh(y, part["pass_pct"].fill_null(0), 0.6, color=PALETTE[2])
        ax.bar_label(
            bars,
            [f"{p}/{n}" for p, n in part.select("n_passed", "n_versions").rows()],
            padding=2,
            fontsize=7,
        )
        ax.set_xlim(0, 115)
        ax.set_xticks([0, 25, 50, 75, 100])
        ax.set_yticks(y, labels)
        ax.invert_yaxis()
        ax.set_xlabel("passed every check, %")
        ax.grid(axis="y", visible=False)
        ax.set_title(f"{study}: rewrites kept for scoring", loc="left")
        left = np.zeros(len(labels))
        for k, check in enumerate(CHECKS):
            counts = part[f"failed_{check}"].fill_null(0).to_numpy().astype(float)
            cax.barh(
                y, counts, 0.6, left=left, color=PALETTE[k + 3 if k < 3 else k - 3], label=check
            )
            left += counts
        cax.set_yticks(y, [""] * len(y))
        cax.invert_yaxis()
        cax.set_xlabel("failed checks (a version can fail several)")
        cax.grid(axis="y", visible=False)
        cax.set_title("why the others failed", loc="left")
        cax.legend(**OUTSIDE, frameon=False, title="check")
    return fig


@styled
def tone_noise(frame: pl.DataFrame) -> Figure | None:
    """Noise versus effect: each gap with its CI against the run-to-run noise of one text's
    gap; outside the grey wedge |gap| > noise, filled = distinguishable from noise."""
    frame = _finite(frame, "gap", "noise")
    if frame.is_empty():
        return None
    studies = _ordered(frame, "study")
    fig = new_figure(3.6, width=min(WIDTH, 1.0 + 4.5 * len(studies)))
    axes = fig.subplots(1, len(studies), squeeze=False)[0]
    for ax, study in zip(axes, studies, strict=True):
        part = frame.filter(pl.col("study") == study)
        judges = _ordered(part, "judge")
        levels = _ordered(part, "prompt_level")
        reach = 1.15 * max(
            float(part["noise"].max()),
            *(abs(float(v)) for v in part["gap_hi"].drop_nulls()),
            *(abs(float(v)) for v in part["gap_lo"].drop_nulls()),
            0.5,
        )
        xs = np.array([0, reach])
        ax.fill_between(xs, -xs, xs, color="#DDDDDD", lw=0, label="|gap| ≤ noise")
        for r in part.iter_rows(named=True):
            c = PALETTE[judges.index(r["judge"]) % len(PALETTE)]
            ax.errorbar(
                [r["noise"]],
                [r["gap"]],
                yerr=_yerr([r["gap"]], [r["gap_lo"]], [r["gap_hi"]]),
                fmt=MARKERS[levels.index(r["prompt_level"]) % len(MARKERS)],
                color=c,
                mfc=c if r["distinguishable"] == "yes" else "white",
                ms=6,
                capsize=2,
                lw=1,
            )
            ax.annotate(
                f"n={r['n_texts']}",
                (r["noise"], r["gap"]),
                xytext=(4, 3),
                textcoords="offset points",
                fontsize=6,
            )
        ax.axhline(0, color="#333333", lw=0.8)
        ax.set_xlim(0, reach)
        ax.set_ylim(-reach, reach)
        ax.set_xlabel("noise: SD of one text's gap from repeats alone")
        ax.set_ylabel("gap A − B with 95% CI")
        ax.set_title(f"{study}: effect vs noise", loc="left")
        handles = [
            Line2D([], [], color=PALETTE[i % len(PALETTE)], marker="o", ls="", label=e)
            for i, e in enumerate(judges)
        ]
        handles += [
            Line2D(
                [],
                [],
                color="#555555",
                marker=MARKERS[i % len(MARKERS)],
                ls="",
                mfc="white",
                label=v,
            )
            for i, v in enumerate(levels)
        ]
        ax.legend(handles=handles, **OUTSIDE, frameon=False)
    return fig


@styled
def variance_components(frame: pl.DataFrame) -> Figure | None:
    """Share of the judges' score variance per source (eta², %), one panel per study; the
    source's degrees of freedom (its n) beside each bar."""
    frame = _finite(frame, "eta_sq_pct")
    studies = _ordered(frame.filter(pl.col("eta_sq_pct") > 0), "study")  # not all zero
    if not studies:
        return None
    frame = frame.filter(pl.col("study").is_in(studies))
    sizes = [frame.filter(pl.col("study") == s).height for s in studies]
    fig = new_figure(0.9 + sum(0.3 * n + 0.8 for n in sizes))
    axes = fig.subplots(len(studies), 1, squeeze=False, height_ratios=[n + 2 for n in sizes])
    for ax, study in zip((a[0] for a in axes), studies, strict=True):
        part = frame.filter(pl.col("study") == study).sort("eta_sq_pct", descending=True)
        y = np.arange(part.height)
        bars = ax.barh(y, part["eta_sq_pct"], 0.6, color=PALETTE[0])
        ax.bar_label(
            bars,
            [f"{v:.1f}% (df {d})" for v, d in part.select("eta_sq_pct", "df").rows()],
            padding=2,
            fontsize=7,
        )
        ax.set_yticks(y, part["component"].to_list())
        ax.invert_yaxis()
        ax.set_xlim(0, 118)
        ax.set_xticks([0, 25, 50, 75, 100])
        ax.set_xlabel("share of the score variance (eta²), %")
        ax.grid(axis="y", visible=False)
        ax.set_title(f"{study}: where the judge-score variance comes from", loc="left")
    return fig


DRIFT_DESIGN = ("prompt_level", "scale", "reasoning_effort")
DRIFT_Y = {"mean_shift": "mean shift vs reference (1–7)", "flip_rate": "flip rate vs reference"}
FLAG_RING = {"marker": "o", "ms": 12, "mfc": "none", "mec": "#000000", "mew": 1.5, "ls": ""}


def _drift_bands(statistic: str, noise: float) -> tuple[float, float]:
    """The band repeat noise alone keeps a batch in: ±noise around a mean shift, [0, noise]
    for a flip rate (a rate is never negative)."""
    return (0.0, noise) if statistic == "flip_rate" else (-noise, noise)


@styled
def drift(frame: pl.DataFrame) -> Figure | None:
    """Canary drift over time: a panel per watched judge, x = the canary's buckets in order, a
    line per design of its shift from the reference batch with CI bars over that design's
    noise band (shaded per batch); flagged batches, whose CI misses the band, are ringed."""
    if _finite(frame, "shift").is_empty():
        return None  # only reference batches so far
    frame = frame.sort("study", "judge", "bucket")
    panels = frame.select("study", "judge").unique(maintain_order=True).rows()
    designs = frame.select(DRIFT_DESIGN).unique().sort(DRIFT_DESIGN).rows()
    ncols = min(2, len(panels))
    nrows = math.ceil(len(panels) / ncols)
    fig = new_figure(0.9 + 2.7 * nrows)
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    width = min(0.12, 0.5 / len(designs))
    for ax, (study, judge) in zip(axes, panels, strict=False):
        part = frame.filter((pl.col("study") == study) & (pl.col("judge") == judge))
        buckets = sorted(frame.filter(pl.col("study") == study)["bucket"].unique().to_list())
        refs = set(part.filter(pl.col("reference").is_null())["bucket"])
        for k, design in enumerate(designs):
            line = part.filter(_is_design(design))
            color = PALETTE[k % len(PALETTE)]
            for r in _finite(line, "noise").iter_rows(named=True):
                x = buckets.index(r["bucket"])
                lo, hi = _drift_bands(r["statistic"], float(r["noise"]))
                ax.fill_between([x - 0.42, x + 0.42], lo, hi, color=color, alpha=0.13, lw=0)
            shown = _finite(line, "shift")
            if shown.is_empty():
                continue
            x = (
                np.array([buckets.index(b) for b in shown["bucket"]])
                + (k - (len(designs) - 1) / 2) * width
            )
            ys = shown["shift"].to_list()
            ax.errorbar(
                x,
                ys,
                yerr=_yerr(ys, shown["shift_lo"].to_list(), shown["shift_hi"].to_list()),
                fmt=f"{MARKERS[k % len(MARKERS)]}-",
                color=color,
                ms=4,
                lw=1,
                capsize=2,
            )
            flagged = shown["flagged"].fill_null(False).to_numpy()
            if flagged.any():
                ax.plot(x[flagged], np.array(ys, dtype=float)[flagged], **FLAG_RING)
        ax.axhline(0, color="#333333", lw=0.8)
        ax.set_xticks(
            range(len(buckets)), [f"{b}\n(reference)" if b in refs else b for b in buckets]
        )
        ax.set_xlim(-0.6, len(buckets) - 0.4)
        statistics = set(part["statistic"])
        ax.set_ylabel(DRIFT_Y[statistics.pop()] if len(statistics) == 1 else "shift vs reference")
        ax.set_title(f"{study}: {judge}", loc="left")
    for ax in axes[len(panels) :]:
        ax.set_visible(False)
    handles = [
        Line2D(
            [],
            [],
            color=PALETTE[k % len(PALETTE)],
            marker=MARKERS[k % len(MARKERS)],
            label=" · ".join(design) + f" ({_drift_n(frame, design)})",
        )
        for k, design in enumerate(designs)
    ]
    handles += [
        Patch(color="#777777", alpha=0.3, lw=0, label="noise band (design's colour)"),
        Line2D([], [], color="#000000", label="flagged: CI outside the noise band", **FLAG_RING),
    ]
    fig.legend(
        handles=handles, loc="outside lower center", ncol=min(3, len(handles)), frameon=False
    )
    return fig


def _is_design(design: tuple) -> pl.Expr:
    return pl.all_horizontal(pl.col(c) == v for c, v in zip(DRIFT_DESIGN, design, strict=True))


def _drift_n(frame: pl.DataFrame, design: tuple) -> str:
    """The canary items and repeats behind a design's points: `n=50, R=2` (ranges when they
    vary); the reference batches have no point, so they do not count."""
    part = _finite(frame.filter(_is_design(design)), "shift")
    rs = part["repeats"].drop_nulls()
    if rs.is_empty():
        return _n_range(part)
    lo, hi = int(rs.min()), int(rs.max())
    return f"{_n_range(part)}, R={lo}" + (f"–{hi}" if hi != lo else "")
