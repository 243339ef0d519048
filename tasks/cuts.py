"""Every statistic meets its cut here, with one explicit tolerance, in Python and in SQL alike.

A mean difference of −0.20000000000000004 and one of 0.2000000000000000111 are the same 0.2 as
far as the data can tell; a bare `>` calls one "meaningful" and not the other. Values within
`TOLERANCE` of a cut count as *on* the cut: `above` (x > cut) is false there, `at_least`
(x ≥ cut) true, `below` (x < cut) false. The DuckDB macros of the same names
(`macro_sql`, created before any view) make the SQL reports decide exactly as Python does.
"""

from __future__ import annotations

import polars as pl

TOLERANCE = 1e-9  # absolute: far above float noise on 1–7 points, p values, percentages

# the cuts the paper's tables use (and where judgelab applies them)
SIG_P = 0.05  # p < 0.05: significant
BIAS_CUTS = (0.2, 0.3)  # |bias| > cut (Table 7)
MAE_CUT = 0.5  # MAE > cut (Table 7)
MEDIUM_EFFECT = 0.3  # |rank-biserial| ≥ 0.3 medium (≥ 0.5 large, ≥ 0.1 small)
EFFECT_CUTS = {"large": 0.5, "medium": 0.3, "small": 0.1}
OUTLIER_SHARE_POINTS = 15.0  # Tables 9–10: a share moving ≥ 15 points is flagged
OUTLIER_MEAN_CHANGE = 0.05  # … or mean |bias| moving ≥ 0.05 (flagged_broad: bias, MAE too)


def above(x: float | None, cut: float) -> bool | None:
    """x > cut, beyond the tolerance; None stays None (no statistic, no verdict)."""
    return None if x is None else x > cut + TOLERANCE


def at_least(x: float | None, cut: float) -> bool | None:
    """x ≥ cut, counting x within the tolerance below the cut as on it."""
    return None if x is None else x >= cut - TOLERANCE


def below(x: float | None, cut: float) -> bool | None:
    """x < cut, beyond the tolerance."""
    return None if x is None else x < cut - TOLERANCE


def above_expr(x: pl.Expr, cut: float) -> pl.Expr:
    return x > cut + TOLERANCE


def at_least_expr(x: pl.Expr, cut: float) -> pl.Expr:
    return x >= cut - TOLERANCE


def below_expr(x: pl.Expr, cut: float) -> pl.Expr:
    return x < cut - TOLERANCE


def macro_sql() -> str:
    """DuckDB macros `above(x, cut)`, `at_least(x, cut)`, `below(x, cut)` with this module's
    tolerance, and `sig_label(p)` ('yes' / 'no' / null at SIG_P); every rendered view starts
    with them (warehouse.render_view)."""
    tol = repr(TOLERANCE)
    return "\n".join(
        [
            f"create or replace macro above(x, cut) as x > cut + {tol};",
            f"create or replace macro at_least(x, cut) as x >= cut - {tol};",
            f"create or replace macro below(x, cut) as x < cut - {tol};",
            # 'yes' / 'no' for p < SIG_P, null without a test: every view's sig columns
            f"create or replace macro sig_label(p) as case when p is null then null "
            f"when below(p, {SIG_P!r}) then 'yes' else 'no' end;",
        ]
    )
