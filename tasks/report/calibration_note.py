"""The calibration sentence of an accuracy or pairwise study's headline, pure Polars: how far the
judge's stated probabilities (P(TRUE), P(A)) sit from how often it was right, from the rows of
tbl_calibration, so `judgelab run` and the report's section say it beside accuracy."""

from __future__ import annotations

import polars as pl

from tasks.report.panel import Headline


def calibration_sentence(rows: pl.DataFrame) -> str:
    """One study's tbl_calibration rows → "Calibration: ECE …" ("" when no design has an ECE,
    e.g. a judge that returns no probabilities). Miscalibrated: above what a judge calibrated
    by construction reaches 95% of the time with the same probabilities (ece_null_hi)."""
    scored = rows.filter(pl.col("ece").is_not_null())
    if scored.is_empty():
        return ""
    worse = int(scored["miscalibrated"].fill_null(False).sum())
    if scored.height == 1:
        (row,) = scored.iter_rows(named=True)
        said = f"Calibration: ECE {row['ece']:.2f}"
        if row["ece_lo"] is not None and row["ece_hi"] is not None:
            said += f" (95% CI {row['ece_lo']:.2f}–{row['ece_hi']:.2f})"
        return said + (", worse than a calibrated judge's." if worse else ".")
    lo, hi = scored["ece"].min(), scored["ece"].max()
    return (
        f"Calibration: ECE {lo:.2f}–{hi:.2f} across {scored.height} designs, "
        f"{worse} of them worse than a calibrated judge's."
    )


def with_calibration(
    said: dict[str, Headline], calibration: pl.DataFrame, studies: list[str]
) -> dict[str, Headline]:
    """Each study's headline with its calibration sentence after the full text (the top, at
    most three numbers, stays)."""
    out = dict(said)
    for study in studies:
        sentence = calibration_sentence(calibration.filter(pl.col("study") == study))
        if not sentence:
            continue
        old = out.get(study, Headline("", ""))
        out[study] = Headline(old.top or sentence, " ".join(x for x in (old.full, sentence) if x))
    return out
