"""A tone study's headline, pure Polars: its largest tone gap and how many of its gaps stand out
from the evaluator's own repeat noise — computed from the rows of tbl_tone_gaps, so the report's
opening says what its tables show. A gap is distinguishable when its CI excludes 0 and it is
larger than re-asking the evaluator moves one text (the view's `distinguishable`)."""

from __future__ import annotations

import polars as pl

from tasks.report.panel import Headline


def headline(gaps: pl.DataFrame) -> Headline:
    """One study's rows of tbl_tone_gaps → its headline ("" when no gap has a value)."""
    scored = gaps.filter(pl.col("gap").is_not_null())
    if scored.is_empty():
        return Headline("", "")
    largest = scored.with_row_index("_at").sort(
        pl.col("gap").abs(), "_at", descending=[True, False]
    )
    row = largest.row(0, named=True)
    design = [row["judge"], row["prompt_level"]]
    if scored["rewriter"].n_unique() > 1:
        design.append(f"{row['rewriter']} rewrites")
    said = (
        f"Largest tone gap: {row['gap']:+.2f} points of the overall score for {row['axis']} "
        f"({row['contrast']}), {' · '.join(design)}"
    )
    n = scored.height
    k = scored.filter(pl.col("distinguishable") == "yes").height
    if n == 1:
        said += f"; it is {'' if k else 'not '}distinguishable from repeat noise"
    else:
        said += f"; {k} of {n} gaps are distinguishable from repeat noise"
    return Headline(said + ".", said + ".")
