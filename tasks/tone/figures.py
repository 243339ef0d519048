"""The tone report's figures (tasks/tone/report.py): per-text gaps, win ratios and verdict
flips, rewrite pass rates, and the gap against run-to-run noise (a Polars frame in, a
matplotlib figure out)."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from tasks.report.plotting import (
    MARKERS,
    OUTSIDE,
    PALETTE,
    WIDTH,
    as_float,
    error_bars,
    finite_rows,
    new_figure,
    ordered,
    study_rows,
    styled,
)

CHECKS = ("facts", "length", "direction", "mtld", "similarity", "words")


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


def _one_line(group: tuple, frame: pl.DataFrame) -> str:
    return _tone_label(group, frame).replace("\n", " · ")


def _group_rows(frame: pl.DataFrame, per_group: float, extra: float) -> tuple[list, list, float]:
    """Studies, their group counts and the figure height: one row of the axes per group
    (judge × prompt level × rewriter × axis), so labels sit beside their row and never
    crowd each other however many axes a study has."""
    studies = ordered(frame, "study")
    sizes = [len(_tone_groups(frame.filter(pl.col("study") == s))) for s in studies]
    return studies, sizes, 0.4 + sum(per_group * n + extra for n in sizes)


@styled
def tone_per_text(frame: pl.DataFrame) -> Figure | None:
    """Per-text gaps A − B as points over a box, one row per judge × prompt level (× rewriter
    × axis when a study has several)."""
    frame = finite_rows(frame, "gap")
    if frame.is_empty():
        return None
    studies, sizes, height = _group_rows(frame, 0.45, 0.9)
    fig = new_figure(height)
    axes = fig.subplots(len(studies), 1, squeeze=False, height_ratios=[n + 1.5 for n in sizes])
    rng = np.random.default_rng(0)  # fixed jitter: the same data draws the same picture
    for ax, study in zip((a[0] for a in axes), studies, strict=True):
        part = frame.filter(pl.col("study") == study)
        groups = _tone_groups(part)
        data = [part.filter(_tone_filter(g))["gap"].to_numpy() for g in groups]
        y = np.arange(len(groups))[::-1]  # the view's first group on top
        ax.boxplot(
            data,
            positions=y,
            orientation="horizontal",
            widths=0.5,
            showfliers=False,
            medianprops={"color": "black"},
            boxprops={"color": "#777777"},
            whiskerprops={"color": "#777777"},
            capprops={"color": "#777777"},
        )
        judges = ordered(part, "judge")
        for at, g, values in zip(y, groups, data, strict=True):
            ax.scatter(
                values,
                at + rng.uniform(-0.15, 0.15, len(values)),
                s=14,
                alpha=0.8,
                color=PALETTE[judges.index(g[0]) % len(PALETTE)],
                zorder=3,
            )
        ax.axvline(0, color="#333333", lw=0.8)
        ax.set_yticks(
            y, [f"{_one_line(g, part)} (n={len(v)})" for g, v in zip(groups, data, strict=True)]
        )
        ax.set_xlabel("gap A − B per text (1–10)")
        ax.grid(axis="y", visible=False)
        ax.set_title(f"{study}: per-text tone gap", loc="left")
    return fig


@styled
def tone_gaps(frame: pl.DataFrame) -> Figure | None:
    """Win ratio (texts A > B per text B > A) and accept/reject flips at the task's threshold,
    one row per judge × prompt level (× rewriter × axis when a study has several)."""
    if frame.filter(pl.col("n_texts") > 0).is_empty():
        return None
    studies, sizes, height = _group_rows(frame, 0.42, 1.0)
    fig = new_figure(height)
    axes = fig.subplots(
        len(studies), 2, squeeze=False, sharey="row", height_ratios=[n + 2 for n in sizes]
    )
    for row, study in enumerate(studies):
        part = frame.filter(pl.col("study") == study)
        labels = [
            f"{_one_line(g, part)} (n={n})"
            for g, n in zip(_tone_groups(part), part["n_texts"], strict=True)
        ]
        y = np.arange(part.height)[::-1]  # the view's first row on top
        ax, fax = axes[row]
        ratios = [as_float(v) for v in part["win_ratio"]]
        top = max([2.0, *(v for v in ratios if not math.isnan(v))]) * 1.25
        notes = []
        for r, v in zip(part.iter_rows(named=True), ratios, strict=True):
            if not math.isnan(v):
                notes.append(f"{v:.2f}")
            elif r["n_a_wins"]:
                notes.append("B never wins")
            else:
                notes.append("no wins")
        widths = [
            top if (math.isnan(v) and r["n_a_wins"]) else np.nan_to_num(v)
            for v, r in zip(ratios, part.iter_rows(named=True), strict=True)
        ]
        bars = ax.barh(
            y, widths, 0.6, color=[PALETTE[0] if not math.isnan(v) else "#9ecae1" for v in ratios]
        )
        ax.bar_label(bars, notes, padding=2, fontsize=7)
        ax.axvline(1, color="#333333", lw=0.8, ls="--")
        ax.set_xlim(0, top * 1.45)
        ax.set_yticks(y, labels)
        ax.set_xlabel("win ratio A : B")
        ax.grid(axis="y", visible=False)
        ax.set_title(f"{study}: win ratio (1 = no preference)", loc="left")
        a = np.array([as_float(v) for v in part["flip_a_pass_pct"]])
        b = np.array([as_float(v) for v in part["flip_b_pass_pct"]])
        b1 = fax.barh(y + 0.18, np.nan_to_num(a), 0.36, color=PALETTE[1], label="only A passes")
        b2 = fax.barh(y - 0.18, np.nan_to_num(b), 0.36, color=PALETTE[4], label="only B passes")
        fax.bar_label(b1, fmt="%.0f", padding=2, fontsize=7)
        fax.bar_label(b2, fmt="%.0f", padding=2, fontsize=7)
        thresholds = part["threshold"].drop_nulls().unique().to_list()
        at = f" at ≥ {thresholds[0]:g}" if len(thresholds) == 1 else ""
        fax.tick_params(axis="y", labelleft=False)
        fax.set_xlim(0, max(10.0, float(np.nanmax(np.concatenate([a, b, [0]])))) * 1.2)
        fax.set_xlabel("% of texts")
        fax.grid(axis="y", visible=False)
        fax.set_title(f"verdict flips{at}", loc="left")
        fax.legend(**OUTSIDE, frameon=False)
    return fig


@styled
def tone_flips(frame: pl.DataFrame) -> Figure | None:
    """Net flips (only A passes − only B passes, % of texts) at every pass mark: each judge ×
    prompt level (× rewriter × axis) a line of its own colour and marker."""
    frame = finite_rows(frame, "net_flip_pct")
    if frame.is_empty():
        return None
    studies, height = study_rows(frame, 2.6, extra=0.4)
    fig = new_figure(height)
    axes = fig.subplots(len(studies), 1, squeeze=False)
    for ax, study in zip((a[0] for a in axes), studies, strict=True):
        part = frame.filter(pl.col("study") == study)
        levels = ordered(part, "prompt_level")
        styles = ("-", "--", ":", "-.")
        for k, g in enumerate(_tone_groups(part)):
            line = part.filter(_tone_filter(g)).sort("threshold")
            ax.plot(
                line["threshold"],
                line["net_flip_pct"],
                color=PALETTE[k % len(PALETTE)],
                ls=styles[levels.index(g[1]) % len(styles)],
                marker=MARKERS[(k + k // len(PALETTE)) % len(MARKERS)],  # unique to 64
                ms=4,
                label=f"{_one_line(g, part)} (n={line['n_texts'].max()})",
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
    studies = ordered(frame, "study")
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
    frame = finite_rows(frame, "gap", "noise")
    if frame.is_empty():
        return None
    studies = ordered(frame, "study")
    fig = new_figure(3.6, width=min(WIDTH, 1.0 + 4.5 * len(studies)))
    axes = fig.subplots(1, len(studies), squeeze=False)[0]
    for ax, study in zip(axes, studies, strict=True):
        part = frame.filter(pl.col("study") == study)
        judges = ordered(part, "judge")
        levels = ordered(part, "prompt_level")
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
                yerr=error_bars([r["gap"]], [r["gap_lo"]], [r["gap_hi"]]),
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
