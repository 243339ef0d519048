"""An accuracy study's headline, pure Polars: its best and worst design by accuracy, and the
design choice that moves accuracy most — computed from the rows of tbl_accuracy_by_design and
tbl_verdict_impact (Table 17: the largest difference between the levels of one choice, each
level averaged over the other choices), so the report's opening says what its tables show."""

from __future__ import annotations

import polars as pl

from tasks.report.panel import Headline


def _label(row: dict, efforts: bool) -> str:
    parts = [row["judge"], row["prompt_level"]] + ([row["reasoning_effort"]] if efforts else [])
    return " · ".join(str(p) for p in parts)


def headline(designs: pl.DataFrame, impact: pl.DataFrame) -> Headline:
    """One study's rows of tbl_accuracy_by_design and tbl_verdict_impact → its headline ("" when
    no design has an accuracy)."""
    scored = designs.filter(pl.col("acc_pct").is_not_null())
    if scored.is_empty():
        return Headline("", "")
    efforts = scored["reasoning_effort"].n_unique() > 1
    ranked = scored.with_row_index("_at").sort(pl.col("acc_pct"), "_at", descending=[True, False])
    best, worst = ranked.row(0, named=True), ranked.row(-1, named=True)
    said = [f"Best design: {_label(best, efforts)}, {best['acc_pct']:.0f}% accurate"]
    if ranked.height > 1:
        said[0] += f" (worst {worst['acc_pct']:.0f}%)"
    moved = impact.filter(pl.col("max_acc_diff_pct").is_not_null()).sort(
        "max_acc_diff_pct", descending=True, maintain_order=True
    )
    if moved.height:
        choice, diff = moved.select("choice", "max_acc_diff_pct").row(0)
        said.append(
            f"{choice.replace('_', ' ')} moves accuracy most, by up to {diff:.1f} points "
            "between its levels"
        )
    text = "; ".join(said) + "."
    return Headline(text, text)
