"""The accuracy report's figures (tasks/accuracy/report.py): accuracy and leniency per design
and consensus subset, and the verdicts a prompt switches (a Polars frame in, a matplotlib
figure out)."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
from matplotlib.figure import Figure

from tasks.report.plotting import (
    OUTSIDE,
    PALETTE,
    as_float,
    finite_rows,
    new_figure,
    ordered,
    styled,
)

SUBSET_COLORS = {"all": "#000000", "full": "#0072B2", "near": "#56B4E9", "ambiguous": "#E69F00"}
SUBSET_N = {"all": "n_scored", "full": "n_full", "near": "n_near", "ambiguous": "n_ambiguous"}


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
    frame = finite_rows(frame, "acc_pct")
    if frame.is_empty():
        return None
    studies = ordered(frame, "study")
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
            values = np.array([as_float(v) for v in part[column]])
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
        leniency = np.array([as_float(v) for v in part["leniency_pct"]])
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
    frame = finite_rows(
        frame.filter(pl.col("subset") == "all"),
        "wrong_to_right_pct",
        "right_to_wrong_pct",
        "net_change_pct",
    )
    if frame.is_empty():
        return None
    studies = ordered(frame, "study")
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
