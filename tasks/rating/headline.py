"""A rating study's headline, pure Polars: how close its best judge design comes to the humans,
how far its worst stays, and how much of the judges' score variance the design choices carry —
computed from the rows of tbl_rating_performance and tbl_variance_components, so the report's
opening says what its tables show.

* **best / worst design**: the LLM judge designs (not the baselines) by MAE against the human
  mean on the common 1–7 scale; equal MAEs keep the view's order.
* **design share**: the eta² of every variance component that is a design choice or their
  interaction (judge, prompt level, scale, readout; not the item, not the residual), summed.
"""

from __future__ import annotations

import polars as pl

from schemas.scores import readout_label
from tasks.report.panel import Headline

DESIGN = ("judge", "prompt_level", "scale", "readout")


def _pct(share: float) -> str:
    return f"{share:.1f}%" if share < 10 else f"{share:.0f}%"


def shares(variance: pl.DataFrame) -> tuple[float, float] | None:
    """(design choices' share, items' share) of the variance in percent; None when the study
    has no variance split (fewer than two scored designs, or nothing varies)."""
    if variance.is_empty() or not (variance["eta_sq_pct"].fill_null(0) > 0).any():
        return None
    parts = variance.select("component", pl.col("eta_sq_pct").fill_null(0.0))
    design = parts.filter(
        pl.col("component").str.split(":").list.eval(pl.element().is_in(DESIGN)).list.all()
    )
    items = parts.filter(pl.col("component") == "item")
    return float(design["eta_sq_pct"].sum()), float(items["eta_sq_pct"].sum())


def headline(performance: pl.DataFrame, variance: pl.DataFrame) -> Headline:
    """One study's rows of tbl_rating_performance and tbl_variance_components → its headline
    ("" when no judge design has an MAE)."""
    scored = performance.filter((pl.col("kind") == "judge") & pl.col("mae").is_not_null())
    if scored.is_empty():
        return Headline("", "")
    ranked = scored.with_row_index("_at").sort("mae", "_at")
    best, worst = ranked.row(0, named=True), ranked.row(-1, named=True)
    label = " · ".join(best[c] for c in DESIGN[:3]) + readout_label(best.get("readout"))
    if ranked.height == 1:
        said = f"One judge design has an MAE: {label}, MAE {best['mae']:.2f}"
    else:
        said = f"Best judge design: {label}, MAE {best['mae']:.2f} (worst {worst['mae']:.2f})"
    split = shares(variance)
    top = said + (
        f"; the design choices carry {_pct(split[0])} of the judge-score variance" if split else ""
    )
    full = top + (f", the items {_pct(split[1])}" if split else "")
    return Headline(top + ".", full + ".")
