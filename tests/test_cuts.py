"""tasks/cuts.py: a value on a cut up to float noise is on it, in Python, Polars and SQL alike;
and tbl_rating_performance labels significance and effect size through it."""

import duckdb
import polars as pl
import pytest

from judgelab.settings import Settings
from schemas.rating_metrics import RatingMetrics
from tasks import cuts, warehouse

# (x, cut, above x > cut, at_least x ≥ cut, below x < cut)
CASES = [
    (0.2, 0.2, False, True, False),
    (0.2000000000000000111, 0.2, False, True, False),  # the same double as 0.2
    (0.20000000000000004, 0.2, False, True, False),
    (0.19999999999999996, 0.2, False, True, False),
    (abs(-0.20000000000000004), 0.2, False, True, False),
    (0.2 + 1e-6, 0.2, True, True, False),
    (0.2 - 1e-6, 0.2, False, False, True),
    (0.30000000000000004, 0.3, False, True, False),
    (0.5000000000000001, 0.5, False, True, False),
    (0.049999999999999996, 0.05, False, True, False),
    (0.05 - 1e-6, 0.05, False, False, True),
    (14.999999999999993, 15.0, False, True, False),
    (15.000000000000007, 15.0, False, True, False),
    (15.01, 15.0, True, True, False),
    (0.04999999999999999, 0.05, False, True, False),
]


@pytest.mark.parametrize(("x", "cut", "above", "at_least", "below"), CASES)
def test_python_polars_and_sql_agree_on_each_side_of_the_cut(
    x: float, cut: float, above: bool, at_least: bool, below: bool
) -> None:
    assert (cuts.above(x, cut), cuts.at_least(x, cut), cuts.below(x, cut)) == (
        above,
        at_least,
        below,
    )
    frame = pl.DataFrame({"x": [x]}).select(
        cuts.above_expr(pl.col("x"), cut).alias("above"),
        cuts.at_least_expr(pl.col("x"), cut).alias("at_least"),
        cuts.below_expr(pl.col("x"), cut).alias("below"),
    )
    assert frame.row(0) == (above, at_least, below)
    con = duckdb.connect()
    con.execute(cuts.macro_sql())
    sql = con.execute("select above(?, ?), at_least(?, ?), below(?, ?)", [x, cut] * 3).fetchone()
    assert sql == (above, at_least, below)


def test_no_statistic_no_verdict() -> None:
    assert cuts.above(None, 0.2) is cuts.at_least(None, 0.2) is cuts.below(None, 0.2) is None
    got = pl.DataFrame({"x": [None]}, schema={"x": pl.Float64}).select(
        cuts.below_expr(pl.col("x"), 0.05)
    )
    assert got.item() is None


def _metrics(rows: list[dict]) -> pl.DataFrame:
    schema = {n: c.dtype.type for n, c in RatingMetrics.to_schema().columns.items()}
    base = {"study": "s", "kind": "judge", "prompt_level": "base", "scale": "likert7"}
    base |= {"n_planned": 10, "n_items": 10, "parse_failure_rate": 0.0, "error_rate": 0.0}
    full = [{**dict.fromkeys(schema), **base, "model": f"m/{r['judge']}", **r} for r in rows]
    return pl.DataFrame(full, schema=schema)


# judge, wilcoxon_p, rank_biserial → sig, effect
PERFORMANCE_CASES = [
    ("j01", 0.05, 0.5, "no", "large"),
    ("j02", 0.049999999999999996, 0.49999999999999994, "no", "large"),
    ("j03", 0.05 - 1e-6, 0.5 - 1e-6, "yes", "medium"),
    ("j04", 0.05 + 1e-6, -0.3, "no", "medium"),
    ("j05", 0.01, -0.29999999999999993, "yes", "medium"),
    ("j06", 0.5, 0.3 - 1e-6, "no", "small"),
    ("j07", None, 0.1, None, "small"),
    ("j08", 0.2, 0.09999999999999998, "no", "small"),
    ("j09", 0.2, 0.1 - 1e-6, "no", "negligible"),
    ("j10", 0.2, None, "no", None),
]


def test_rating_performance_labels_sig_and_effect_through_the_cuts(settings: Settings) -> None:
    rows = [
        {"judge": j, "wilcoxon_p": p, "rank_biserial": r, "repeat_sd": 0.25, "p_holm": 0.5}
        for j, p, r, *_ in PERFORMANCE_CASES
    ]
    warehouse.write_table(settings, _metrics(rows), "rating_metrics", "s")
    warehouse.ensure_tables(settings)
    con = duckdb.connect()
    for name in (
        "staging/stg_rating_metrics",
        "staging/stg_human_ceiling",
        "staging/stg_baselines",
        "marts/fct_rating_metrics",
        "reports/tbl_rating_performance",
    ):
        con.execute(warehouse.render_view(warehouse.SQL_DIR / f"{name}.sql", settings))
    got = con.sql(
        "select judge, sig, effect, repeat_sd, p_holm from tbl_rating_performance order by judge"
    ).pl()
    assert got.rows() == [(j, s, e, 0.25, 0.5) for j, _, _, s, e in PERFORMANCE_CASES]


def test_sig_label_macro_says_yes_no_or_nothing() -> None:
    import duckdb

    from tasks import cuts

    con = duckdb.connect()
    con.execute(cuts.macro_sql())
    got = con.sql(
        "select sig_label(p) from (values (0.01), (0.05), (0.049999999999999996), (0.0499),"
        " (null)) t(p)"
    ).fetchall()
    assert [r[0] for r in got] == ["yes", "no", "no", "yes", None]


def test_a_value_exactly_one_tolerance_away_is_still_on_the_cut() -> None:
    """The tolerance band is closed: cut ± TOLERANCE itself counts as on the cut."""
    import duckdb

    from tasks import cuts

    assert cuts.above(0.2 + cuts.TOLERANCE, 0.2) is False
    assert cuts.below(0.05 - cuts.TOLERANCE, 0.05) is False
    assert cuts.above(0.2 + 2 * cuts.TOLERANCE, 0.2) is True
    con = duckdb.connect()
    con.execute(cuts.macro_sql())
    row = con.sql(f"select above({0.2 + cuts.TOLERANCE!r}, 0.2)").fetchall()
    assert row == [(False,)]
