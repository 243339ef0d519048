"""The pairwise report's figure: position bias with its interval beside position consistency,
one row per design (a Polars frame of tbl_pairwise_position in, a matplotlib figure out)."""

from __future__ import annotations

import numpy as np
import polars as pl
from matplotlib.figure import Figure

from tasks.report.plotting import PALETTE, new_figure, styled


def _value(x: object) -> float:
    return np.nan if x is None else float(x)


@styled
def position_bias(frame: pl.DataFrame) -> Figure | None:
    """Left: each design's first-position share beyond 50% (percentage points) with its 95%
    bootstrap interval, filled when the sign test flags it; right: position consistency."""
    frame = frame.filter(pl.col("bias_pp").is_not_null())
    if frame.is_empty():
        return None
    show_effort = frame["reasoning_effort"].n_unique() > 1
    labels = [
        f"{s} · {j} · {p}" + (f" · {e}" if show_effort else "")
        for s, j, p, e in frame.select("study", "judge", "prompt_level", "reasoning_effort").rows()
    ]
    y = np.arange(len(labels))[::-1]
    fig = new_figure(1.2 + 0.35 * len(labels))
    ax, cax = fig.subplots(1, 2, width_ratios=[2.2, 1], sharey=True)
    bias = np.array([_value(v) for v in frame["bias_pp"]])
    lo = np.array([_value(v) for v in frame["bias_lo_pp"]])
    hi = np.array([_value(v) for v in frame["bias_hi_pp"]])
    err = np.nan_to_num(np.vstack([bias - lo, hi - bias]), nan=0.0).clip(min=0)
    ax.errorbar(bias, y, xerr=err, fmt="none", ecolor=PALETTE[0], capsize=3)
    flagged = np.array([bool(f) for f in frame["flagged"]])
    for mask, style in (
        (flagged, {"color": PALETTE[5], "label": "flagged (sign test)"}),
        (~flagged, {"facecolor": "white", "edgecolor": PALETTE[0], "label": "not flagged"}),
    ):
        if mask.any():  # a legend entry only for points that are drawn
            ax.scatter(bias[mask], y[mask], zorder=3, **style)
    ax.axvline(0, color="grey", lw=0.8)
    ax.set_yticks(y, labels)
    ax.set_xlabel("first-position wins beyond 50% (pp), 95% CI over pairs")
    # above the axes, never over a point (inside, it hid the last design)
    ax.legend(loc="lower left", bbox_to_anchor=(0, 1.0), ncols=2, frameon=False)
    consistency = np.array([_value(v) for v in frame["consistency_pct"]])
    bars = cax.barh(y, np.nan_to_num(consistency), color=PALETTE[2], height=0.6)
    # each value written at its bar, and a tick where the bar ends: a 0% bar is still seen
    cax.scatter(np.nan_to_num(consistency), y, marker="|", s=90, color=PALETTE[2], zorder=3)
    cax.bar_label(
        bars, ["–" if np.isnan(v) else f"{v:.0f}%" for v in consistency], padding=3, fontsize=7
    )
    cax.set_xlim(0, 115)
    cax.set_xticks([0, 25, 50, 75, 100])
    cax.set_xlabel("same winner in both orders (%)")
    if np.nan_to_num(consistency).max() == 0:
        cax.set_title("no design keeps a winner\nwhen the answers swap", loc="left", fontsize=8)
    return fig
