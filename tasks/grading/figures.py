"""The grading report's figure: per design, the mean grade of right and of wrong candidates
joined by a line (its length is the separation), beside MAE against the labels with its 95% CI
(a Polars frame of tbl_grading_by_design in, a matplotlib figure out)."""

from __future__ import annotations

import numpy as np
import polars as pl
from matplotlib.figure import Figure

from schemas.scores import readout_label, with_readout
from tasks.report.plotting import PALETTE, error_bars, finite_rows, new_figure, styled


@styled
def grades_by_label(frame: pl.DataFrame) -> Figure | None:
    """Left: right candidates' mean grade (filled) and wrong ones' (open) per design, 1–5;
    right: MAE on 1–7 with its bootstrap 95% CI."""
    frame = finite_rows(frame, "grade_right", "grade_wrong")
    if frame.is_empty():
        return None
    labels = [
        f"{s} · {j} · {p}" + readout_label(r)
        for s, j, p, r in with_readout(frame)
        .select("study", "judge", "prompt_level", "readout")
        .rows()
    ]
    y = np.arange(len(labels))[::-1]
    fig = new_figure(1.3 + 0.35 * len(labels))
    ax, mae_ax = fig.subplots(1, 2, width_ratios=[2.2, 1], sharey=True)
    right, wrong = frame["grade_right"].to_numpy(), frame["grade_wrong"].to_numpy()
    ax.hlines(y, np.minimum(right, wrong), np.maximum(right, wrong), color="#999999", zorder=1)
    ax.scatter(right, y, color=PALETTE[2], zorder=3, label="right candidates")
    ax.scatter(wrong, y, facecolors="white", edgecolors=PALETTE[5], zorder=3, label="wrong")
    ax.set_xlim(0.8, 5.2)
    ax.set_xlabel("mean grade (1–5)")
    ax.set_yticks(y, labels)
    ax.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=2, frameon=False)
    mae = frame["mae"].cast(pl.Float64).to_list()
    err = error_bars(mae, frame["mae_lo"].to_list(), frame["mae_hi"].to_list())
    mae_ax.errorbar(mae, y, xerr=err, fmt="o", color=PALETTE[0], capsize=3)
    mae_ax.set_xlabel("MAE vs label (1–7)")
    mae_ax.set_xlim(left=0)
    return fig
