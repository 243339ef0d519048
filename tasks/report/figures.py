"""The report's own figures: the summary's calls by outcome, the canary's drift, and the
variance components a rating and a pairwise section both draw (a Polars frame in, a matplotlib
figure out; the helpers are in plotting.py, each type's figures in tasks/<type>/figures.py)."""

from __future__ import annotations

import math
import textwrap

import numpy as np
import polars as pl
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from tasks.report.plotting import (
    MARKERS,
    OUTSIDE,
    PALETTE,
    error_bars,
    finite_rows,
    n_range,
    new_figure,
    ordered,
    styled,
)

STATUS_COLORS = {
    "ok": "#009E73",
    "unparseable": "#E69F00",
    "out_of_range": "#CC79A7",
    "error": "#D55E00",
    "missing": "#BBBBBB",
}


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
def variance_components(frame: pl.DataFrame) -> Figure | None:
    """Share of the judges' score variance per source (eta², %), one panel per study; the
    source's degrees of freedom (its n) beside each bar. The sequential split only: the
    random-effects rows (method random_ems) are tbl_variance_components' own columns."""
    if "method" in frame.columns:
        frame = frame.filter(pl.col("method") == "type1_anova")
    frame = finite_rows(frame, "eta_sq_pct")
    studies = ordered(frame.filter(pl.col("eta_sq_pct") > 0), "study")  # not all zero
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


@styled
def d_study(frame: pl.DataFrame) -> Figure | None:
    """The D-study, one panel per study: Eρ² (solid) and Φ (dashed) against the judges
    averaged over, one colour per number of prompt levels, the third facet (scales or orders)
    at the most the grid has and one readout (a study reading its calls two ways)."""
    frame = finite_rows(frame, "g_relative")
    studies = ordered(frame, "study")
    if not studies:
        return None
    fig = new_figure(0.6 + 2.6 * len(studies))
    axes = fig.subplots(len(studies), 1, squeeze=False)
    for ax, study in zip((a[0] for a in axes), studies, strict=True):
        part = frame.filter(pl.col("study") == study)
        if "n_readouts" in part.columns:
            part = part.filter(pl.col("n_readouts").fill_null(1) == 1)
        third = "n_scales" if part["n_scales"].drop_nulls().len() else "n_orders"
        most = part[third].max()
        part = part.filter(pl.col(third) == most)
        for k, (levels,) in enumerate(
            part.select("n_prompt_levels").unique().sort("n_prompt_levels").rows()
        ):
            line = part.filter(pl.col("n_prompt_levels") == levels).sort("n_judges")
            color = PALETTE[k % len(PALETTE)]
            ax.plot(
                line["n_judges"],
                line["g_relative"],
                "-o",
                color=color,
                label=f"{levels} prompt level(s): Eρ²",
            )
            ax.plot(line["n_judges"], line["phi"], "--", color=color, label=f"{levels}: Φ")
        ax.set_ylim(0, 1.02)
        ax.set_xticks(sorted(part["n_judges"].unique().to_list()))
        ax.set_xlabel(f"judges averaged over ({third.removeprefix('n_')}: {most})")
        ax.set_ylabel("G coefficient")
        ax.legend(**OUTSIDE, frameon=False, fontsize=7)
        ax.set_title(f"{study}: reliability of a score averaged over the design", loc="left")
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
    if finite_rows(frame, "shift").is_empty():
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
            for r in finite_rows(line, "noise").iter_rows(named=True):
                x = buckets.index(r["bucket"])
                lo, hi = _drift_bands(r["statistic"], float(r["noise"]))
                ax.fill_between([x - 0.42, x + 0.42], lo, hi, color=color, alpha=0.13, lw=0)
            shown = finite_rows(line, "shift")
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
                yerr=error_bars(ys, shown["shift_lo"].to_list(), shown["shift_hi"].to_list()),
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
    part = finite_rows(frame.filter(_is_design(design)), "shift")
    rs = part["repeats"].drop_nulls()
    if rs.is_empty():
        return n_range(part)
    lo, hi = int(rs.min()), int(rs.max())
    return f"{n_range(part)}, R={lo}" + (f"–{hi}" if hi != lo else "")


CALIBRATION_DESIGN = ["study", "judge", "prompt_level", "reasoning_effort"]
RELIABILITY_COLUMNS = 4  # small multiples per row
TITLE_CHARS = 34  # a title line's characters before it wraps (a panel is 2.6 inches wide)


@styled
def reliability(frame: pl.DataFrame) -> Figure | None:
    """Reliability diagrams, one panel per design: each non-empty bin of the judge's probability
    of the event as a point at (mean probability, observed frequency), its area by the calls in
    it, against the diagonal a calibrated judge lies on; the panel's title gives the design's
    ECE and Brier (`frame`: tbl_calibration_bins joined to tbl_calibration's ece, brier and
    event)."""
    frame = finite_rows(frame, "mean_p", "observed")
    if frame.is_empty():
        return None
    designs = frame.select(CALIBRATION_DESIGN).unique(maintain_order=True).rows()
    show_effort = frame["reasoning_effort"].n_unique() > 1
    show_study = frame["study"].n_unique() > 1
    cols = min(RELIABILITY_COLUMNS, len(designs))
    rows = math.ceil(len(designs) / cols)
    fig = new_figure(0.6 + 2.4 * rows, width=min(10.0, 2.6 * cols + 0.6))
    axes = fig.subplots(rows, cols, squeeze=False, sharex=True, sharey=True)
    biggest = max(1, int(frame["n"].max()))
    for k, design in enumerate(designs):
        ax = axes[k // cols][k % cols]
        part = frame.filter(
            pl.all_horizontal(
                pl.col(c) == v for c, v in zip(CALIBRATION_DESIGN, design, strict=True)
            )
        )
        study, judge, level, effort = design
        ax.plot([0, 1], [0, 1], color="grey", lw=0.8, ls="--")
        ax.plot(part["mean_p"], part["observed"], color=PALETTE[0], lw=1)
        ax.scatter(
            part["mean_p"],
            part["observed"],
            s=12 + 120 * part["n"].to_numpy() / biggest,
            color=PALETTE[0],
            zorder=3,
        )
        row = part.row(0, named=True)
        # one short line each, wrapped to the panel's width: neighbours' titles never touch
        lines = [study] if show_study else []
        lines += [judge, level + (f" · {effort}" if show_effort else "")]
        lines.append(f"ECE {row['ece']:.3f} · Brier {row['brier']:.3f} · n={int(part['n'].sum())}")
        title = "\n".join(textwrap.fill(line, TITLE_CHARS) for line in lines)
        ax.set_title(title, loc="left", fontsize=7.5)
        ax.set_xlim(-0.02, 1.02)
        ax.set_ylim(-0.02, 1.02)
        ax.set_aspect("equal")
    for k in range(len(designs), rows * cols):
        axes[k // cols][k % cols].set_visible(False)
    event = frame["event"][0] if frame["event"].n_unique() == 1 else "the event"
    fig.supxlabel(f"judge's probability of {event} (mean in bin)", fontsize=9)
    fig.supylabel("observed frequency", fontsize=9)
    return fig


CORRECTED = (  # (label, estimate, lo, hi): the estimates tbl_corrected sets side by side
    ("judge alone", "judge_mean", "judge_lo", "judge_hi"),
    ("judge + labels (PPI)", "ppi_mean", "ppi_lo", "ppi_hi"),
    ("Rogan–Gladen", "rg_rate", "rg_lo", "rg_hi"),
    ("labels alone", "human_mean", "human_lo", "human_hi"),
)


@styled
def corrected(frame: pl.DataFrame) -> Figure | None:
    """Per design (a row), the judge-only, PPI, Rogan–Gladen (verdicts) and labels-only
    estimates with their 95% CIs, one panel per study; under label_share the answer key
    (every item's human label) is a dashed line the intervals should cross."""
    frame = finite_rows(frame, "ppi_mean")
    if frame.is_empty():
        return None
    studies = ordered(frame, "study")
    parts = [frame.filter(pl.col("study") == s) for s in studies]
    shown = [[c for c in CORRECTED if p[c[1]].is_not_null().any()] for p in parts]
    sizes = [p.height * len(c) for p, c in zip(parts, shown, strict=True)]
    fig = new_figure(1.2 + sum(0.25 * n + 0.8 for n in sizes))
    axes = fig.subplots(len(studies), 1, squeeze=False, height_ratios=[n + 2 for n in sizes])
    legend: dict = {}
    for ax, study, part, kinds in zip((a[0] for a in axes), studies, parts, shown, strict=True):
        names = [
            " · ".join(str(v) for v in r if v is not None)
            for r in part.select("judge", "prompt_level", "scale", "reasoning_effort").rows()
        ]
        y = np.arange(part.height)
        step = 0.7 / len(kinds)
        for k, (label, est, lo, hi) in enumerate(kinds):
            color = CORRECTED.index((label, est, lo, hi))
            ax.errorbar(
                part[est].to_numpy().astype(float),
                y + (k - (len(kinds) - 1) / 2) * step,
                xerr=error_bars(part[est].to_list(), part[lo].to_list(), part[hi].to_list()),
                fmt=MARKERS[color % len(MARKERS)],
                color=PALETTE[color % len(PALETTE)],
                ms=4,
                capsize=2,
                lw=1,
                label=label,
            )
        key = part["human_all"].drop_nulls()
        if key.len():
            ax.axvline(float(key.mean()), color="#333333", lw=0.9, ls="--", label="answer key")
        ticks = [f"{n}\n{k} labels" for n, k in zip(names, part["n_labelled"], strict=True)]
        ax.set_yticks(y, ticks)
        ax.invert_yaxis()
        ax.grid(axis="y", visible=False)
        ax.set_xlabel("human-scale mean (1–7; accuracy: share truly correct)")
        title = f"{study}: the judge alone, corrected by human labels, labels alone"
        ax.set_title(title, loc="left")
        legend |= dict(zip(*reversed(ax.get_legend_handles_labels()), strict=True))
    fig.legend(
        list(legend.values()),
        list(legend),
        loc="outside lower center",
        ncol=len(legend),
        frameon=False,
    )
    return fig
