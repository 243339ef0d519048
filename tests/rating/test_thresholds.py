"""Threshold shares by hand, with and without the outlier scale; every cut on, beside and a
float-noise hair off its value; Table 8's test of |bias| against scipy and pingouin; the
Table 7 / 8 / 9–10 views over them."""

import duckdb
import pandas as pd
import pingouin as pg
import polars as pl
import pytest
from scipy import stats as sps

from judgelab.settings import Settings
from schemas.threshold_shares import ThresholdShares
from tasks import warehouse
from tasks.rating.thresholds import threshold_shares

COLUMNS = {
    "study": pl.String,
    "kind": pl.String,
    "judge": pl.String,
    "prompt_level": pl.String,
    "scale": pl.String,
    "n_items": pl.Int64,
    "bias": pl.Float64,
    "mae": pl.Float64,
    "wilcoxon_p": pl.Float64,
    "p_holm": pl.Float64,
    "p_bh": pl.Float64,
    "rank_biserial": pl.Float64,
}


def _metrics(rows: list[tuple]) -> pl.DataFrame:
    return pl.DataFrame([("s", "judge", *r) for r in rows], schema=COLUMNS, orient="row")


METRICS = _metrics(
    [
        # judge, level, scale, n, bias, mae, p, p Holm, p BH, rank-biserial
        ("a", "base", "likert7", 50, 0.10, 0.40, 0.20, 0.60, 0.25, 0.05),
        ("a", "base", "bipolar3", 50, 0.60, 0.70, 0.001, 0.004, 0.004, 0.55),
        ("a", "long_icl", "likert7", 50, -0.25, 0.55, 0.01, 0.06, 0.02, -0.35),
        ("b", "base", "likert7", 50, 0.00, 0.30, None, None, None, None),  # no test: not sig
        ("b", "base", "bipolar3", 0, None, None, None, None, None, None),  # nothing scored
    ]
)


def _row(out: pl.DataFrame, subset: str, grouping: str, group: str) -> dict:
    return out.filter(
        (pl.col("subset") == subset) & (pl.col("grouping") == grouping) & (pl.col("group") == group)
    ).row(0, named=True)


def test_shares_and_averages_by_hand() -> None:
    out = threshold_shares(METRICS, "bipolar3")
    every = _row(out, "all", "all", "(all)")
    assert every["n_designs"] == 4
    # denominators: the 4 scored designs; null p / rank-biserial count as not beyond the cut
    assert every["share_sig"] == pytest.approx(2 / 4)
    assert every["share_sig_holm"] == pytest.approx(1 / 4)
    assert every["share_sig_bh"] == pytest.approx(2 / 4)
    assert every["share_bias_gt_02"] == pytest.approx(2 / 4)
    assert every["share_bias_gt_03"] == pytest.approx(1 / 4)
    assert every["share_mae_gt_05"] == pytest.approx(2 / 4)
    assert every["share_medium_large"] == pytest.approx(2 / 4)
    assert every["mean_bias"] == pytest.approx((0.1 + 0.6 - 0.25 + 0) / 4)
    assert every["mean_abs_bias"] == pytest.approx((0.1 + 0.6 + 0.25 + 0) / 4)
    assert every["mean_mae"] == pytest.approx((0.4 + 0.7 + 0.55 + 0.3) / 4)
    assert (every["min_bias"], every["max_bias"]) == (-0.25, 0.6)
    judge_a = _row(out, "all", "model", "a")
    assert judge_a["n_designs"] == 3 and judge_a["share_sig"] == pytest.approx(2 / 3)
    judge_b = _row(out, "all", "model", "b")
    assert judge_b["n_designs"] == 1 and judge_b["share_sig"] == 0.0
    long_icl = _row(out, "all", "prompt_level", "long_icl")
    assert long_icl["n_designs"] == 1 and long_icl["share_bias_gt_02"] == 1.0


def test_without_the_outlier_scale() -> None:
    out = threshold_shares(METRICS, "bipolar3")
    without = _row(out, "without bipolar3", "all", "(all)")
    assert without["n_designs"] == 3
    assert without["share_bias_gt_03"] == 0.0
    assert without["share_sig_holm"] == 0.0
    assert without["max_bias"] == pytest.approx(0.1)
    assert set(threshold_shares(METRICS, None)["subset"]) == {"all"}


NEUTRAL = {"bias": 0.0, "mae": 0.1, "wilcoxon_p": 0.9, "p_holm": 0.9, "p_bh": 0.9}
NEUTRAL |= {"rank_biserial": 0.0}
NOISE = 0.049999999999999996  # 0.05 less one unit in the last place
# (statistic, value, share, share of the one design beyond the cut)
CUT_CASES = [
    ("bias", 0.2, "share_bias_gt_02", 0.0),
    ("bias", -0.20000000000000004, "share_bias_gt_02", 0.0),
    ("bias", 0.2000000000000000111, "share_bias_gt_02", 0.0),
    ("bias", 0.19999999999999996, "share_bias_gt_02", 0.0),
    ("bias", 0.2 + 1e-6, "share_bias_gt_02", 1.0),
    ("bias", -0.2 - 1e-6, "share_bias_gt_02", 1.0),
    ("bias", 0.30000000000000004, "share_bias_gt_03", 0.0),
    ("bias", -0.3, "share_bias_gt_03", 0.0),
    ("bias", 0.3 - 1e-6, "share_bias_gt_03", 0.0),
    ("bias", -0.3 - 1e-6, "share_bias_gt_03", 1.0),
    ("mae", 0.5, "share_mae_gt_05", 0.0),
    ("mae", 0.5000000000000001, "share_mae_gt_05", 0.0),
    ("mae", 0.5 + 1e-6, "share_mae_gt_05", 1.0),
    ("mae", 0.5 - 1e-6, "share_mae_gt_05", 0.0),
    ("wilcoxon_p", 0.05, "share_sig", 0.0),
    ("wilcoxon_p", NOISE, "share_sig", 0.0),
    ("wilcoxon_p", 0.05 - 1e-6, "share_sig", 1.0),
    ("p_holm", 0.05, "share_sig_holm", 0.0),
    ("p_holm", NOISE, "share_sig_holm", 0.0),
    ("p_holm", 0.05 - 1e-6, "share_sig_holm", 1.0),
    ("p_bh", 0.05, "share_sig_bh", 0.0),
    ("p_bh", NOISE, "share_sig_bh", 0.0),
    ("p_bh", 0.05 - 1e-6, "share_sig_bh", 1.0),
    ("rank_biserial", 0.3, "share_medium_large", 1.0),
    ("rank_biserial", -0.30000000000000004, "share_medium_large", 1.0),
    ("rank_biserial", 0.29999999999999993, "share_medium_large", 1.0),
    ("rank_biserial", 0.3 - 1e-6, "share_medium_large", 0.0),
    ("rank_biserial", -0.3 + 1e-6, "share_medium_large", 0.0),
]


@pytest.mark.parametrize(("column", "value", "share", "expected"), CUT_CASES)
def test_every_cut_on_beside_and_a_hair_off(
    column: str, value: float, share: str, expected: float
) -> None:
    """One design beside one neutral design: the share is 0 or ½. The other shares stay 0,
    so a share reading the wrong statistic or cut fails too."""
    stats = {**NEUTRAL, column: value}
    row = ("a", "base", "likert7", 20, *(stats[c] for c in list(COLUMNS)[6:]))
    neutral = ("b", "base", "likert7", 20, *NEUTRAL.values())
    every = _row(threshold_shares(_metrics([row, neutral]), None), "all", "all", "(all)")
    assert every[share] == expected / 2
    beyond = {"share_bias_gt_02": abs(stats["bias"]) > 0.2 + 1e-9}  # > 0.3 is also > 0.2
    others = [c for c in every if c.startswith("share_") and c != share]
    assert all(every[c] == beyond.get(c, False) / 2 for c in others), every


def _shares_frame(rows: list[dict]) -> pl.DataFrame:
    zero = {c: 0.0 for c in ThresholdShares.to_schema().columns if c.startswith("share_")}
    base = {"study": "s", "kind": "judge", "grouping": "model", "n_designs": 4, **zero}
    base |= {"mean_bias": 0.1, "mean_abs_bias": 0.2, "mean_mae": 0.4, "min_bias": -1.0}
    base |= {"max_bias": 1.0, "abs_bias_h": None, "abs_bias_df": None, "abs_bias_p": None}
    schema = {c: col.dtype.type for c, col in ThresholdShares.to_schema().columns.items()}
    return pl.DataFrame([{**base, **r} for r in rows], schema=schema)


# group: (changes in the "all" row, changes in the "without" row, flagged, flagged_broad);
# flagged is Table 9's bold (≥ 15 points in a share or ≥ 0.05 in mean |bias|), flagged_broad
# also fires on ≥ 0.05 in mean signed bias or MAE
OUTLIER_CASES = {
    "g1": ({"share_sig": 0.55}, {"share_sig": 0.4}, True, True),  # 15.000000000000007 points
    # 14.999999999999993 points
    "g2": ({"share_bias_gt_02": 0.7}, {"share_bias_gt_02": 0.55}, True, True),
    "g3": ({"share_mae_gt_05": 0.5}, {"share_mae_gt_05": 0.3501}, False, False),  # 14.99
    "g4": ({"share_medium_large": 0.2}, {}, True, True),  # 20 points
    "g5": ({"mean_bias": 0.15}, {"mean_bias": 0.1}, False, True),  # 0.04999999999999999, signed
    "g6": ({"mean_mae": 0.6}, {"mean_mae": 0.55}, False, True),  # 0.04999999999999993 in MAE
    "g7": ({"mean_abs_bias": 0.3}, {"mean_abs_bias": 0.2501}, False, False),  # 0.0499
    "g8": ({"share_bias_gt_03": 0.1}, {}, False, False),  # 10 points
    "g9": ({"share_sig_holm": 0.9, "share_sig_bh": 0.9}, {}, False, False),  # not in the flag
    "h1": ({"mean_abs_bias": 0.26}, {}, True, True),  # 0.06
    "h2": ({"mean_abs_bias": 0.25}, {}, True, True),  # 0.04999999999999999 in |bias|: on the cut
    # a signed bias that swings from −0.1 to +0.1 with |bias| unchanged: not the paper's bold
    "h3": (
        {"mean_bias": -0.1, "mean_abs_bias": 0.1},
        {"mean_bias": 0.1, "mean_abs_bias": 0.1},
        False,
        True,
    ),
}


def _views(settings: Settings, *names: str) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    for name in names:
        con.execute(warehouse.render_view(warehouse.SQL_DIR / f"{name}.sql", settings))
    return con


def test_outlier_scale_flags_15_points_or_005_in_abs_bias_with_the_tolerance(
    settings: Settings,
) -> None:
    rows = []
    for group, (changed_all, changed_without, *_) in OUTLIER_CASES.items():
        rows.append({"subset": "all", "group": group, **changed_all})
        rows.append({"subset": "without bipolar3", "group": group, **changed_without})
    warehouse.write_table(settings, _shares_frame(rows), "threshold_shares", "s")
    con = _views(settings, "staging/stg_threshold_shares", "reports/tbl_outlier_scale")
    got = con.sql(
        'select "group", flagged, flagged_broad, sig_holm_all, sig_holm_without '
        "from tbl_outlier_scale"
    ).pl()
    assert dict(zip(got["group"], got["flagged"], strict=True)) == {
        g: flagged for g, (_, _, flagged, _) in OUTLIER_CASES.items()
    }
    assert dict(zip(got["group"], got["flagged_broad"], strict=True)) == {
        g: broad for g, (*_, broad) in OUTLIER_CASES.items()
    }
    g9 = got.filter(pl.col("group") == "g9").row(0, named=True)
    assert (g9["sig_holm_all"], g9["sig_holm_without"]) == (90.0, 0.0)


def test_threshold_view_shows_raw_and_adjusted_shares(settings: Settings) -> None:
    out = threshold_shares(METRICS, "bipolar3")
    warehouse.write_table(settings, out, "threshold_shares", "s")
    con = _views(settings, "staging/stg_threshold_shares", "reports/tbl_threshold_shares")
    got = con.sql(
        "select sig_pct, sig_holm_pct, sig_bh_pct from tbl_threshold_shares where grouping = 'all'"
    ).pl()
    assert got.rows() == [(50.0, 25.0, 50.0)]  # the "all" subset only


# Table 8's test: |bias| of 3 judges × 2 prompt levels × 2 scales, with tied |bias| values
# (0.3 and −0.3, 0.1 twice) so the tie correction matters
TESTED = _metrics(
    [
        (judge, level, scale, 30, bias, 0.5, 0.5, 0.5, 0.5, 0.1)
        for judge, biases in {
            "a": [0.30, -0.30, 0.10, 0.45],
            "b": [0.05, 0.10, -0.02, 0.00],
            "c": [-0.60, 0.52, 0.38, -0.30],
        }.items()
        for (level, scale), bias in zip(
            [("base", "likert7"), ("base", "unit"), ("long_icl", "likert7"), ("long_icl", "unit")],
            biases,
            strict=True,
        )
    ]
)


@pytest.mark.parametrize(
    ("grouping", "column"), [("model", "judge"), ("prompt_level", "prompt_level")]
)
def test_abs_bias_test_matches_scipy_and_pingouin(grouping: str, column: str) -> None:
    out = threshold_shares(TESTED, "unit")
    frame = TESTED.with_columns(pl.col("bias").abs().alias("abs_bias")).to_pandas()
    for subset, rows in [("all", frame), ("without unit", frame[frame["scale"] != "unit"])]:
        groups = [g["abs_bias"].to_numpy() for _, g in rows.groupby(column)]
        h, p = sps.kruskal(*groups)
        ref = pg.kruskal(data=pd.DataFrame(rows), dv="abs_bias", between=column)
        got = out.filter(subset=subset, grouping=grouping)
        assert got.height == len(groups)  # one test, shown on each row of the grouping
        for row in got.iter_rows(named=True):
            assert row["abs_bias_h"] == pytest.approx(h, rel=1e-12)
            assert row["abs_bias_h"] == pytest.approx(ref["H"].item(), rel=1e-12)
            assert row["abs_bias_df"] == len(groups) - 1 == ref["ddof1"].item()
            assert row["abs_bias_p"] == pytest.approx(p, rel=1e-12)
            assert row["abs_bias_p"] == pytest.approx(ref["p_unc"].item(), rel=1e-12)
    # judges by hand: |bias| ranks 1..12 with the ties 0.1 (ranks 4, 5) and 0.3 (6, 7, 8)
    model = out.filter(subset="all", grouping="model").row(0, named=True)
    ranks = {"a": [7, 7, 4.5, 10], "b": [3, 4.5, 2, 1], "c": [12, 11, 9, 7]}
    n = 12
    h = 12 / (n * (n + 1)) * sum(sum(r) ** 2 / len(r) for r in ranks.values()) - 3 * (n + 1)
    ties = 1 - (2**3 - 2 + 3**3 - 3) / (n**3 - n)
    assert model["abs_bias_h"] == pytest.approx(h / ties, rel=1e-12)
    assert model["abs_bias_p"] == pytest.approx(sps.chi2.sf(h / ties, 2), rel=1e-12)


def test_abs_bias_test_is_null_with_nothing_to_compare() -> None:
    everything = threshold_shares(METRICS, "bipolar3").filter(grouping="all")
    assert everything["abs_bias_p"].null_count() == everything.height
    base_only = threshold_shares(METRICS.filter(prompt_level="base"), None)
    assert base_only.filter(grouping="prompt_level")["abs_bias_p"].to_list() == [None]
    same = METRICS.filter(pl.col("n_items") > 0).with_columns(bias=pl.lit(0.2))
    tied = threshold_shares(same, None).filter(grouping="model")
    assert tied["abs_bias_h"].to_list() == [None, None]  # every |bias| equal: H is 0/0
    assert tied["abs_bias_df"].to_list() == [None, None]


def test_bias_summary_view_shows_the_test(settings: Settings) -> None:
    out = threshold_shares(TESTED, None)
    warehouse.write_table(settings, out, "threshold_shares", "s")
    con = _views(settings, "staging/stg_threshold_shares", "reports/tbl_bias_summary")
    got = con.sql(
        'select grouping, "group", mean_abs_bias, abs_bias_h, abs_bias_df, abs_bias_p, '
        "abs_bias_sig from tbl_bias_summary"
    ).pl()
    by_judge = got.filter(grouping="model")
    model = out.filter(grouping="model").row(0, named=True)
    assert by_judge["abs_bias_h"].to_list() == [round(model["abs_bias_h"], 3)] * 3
    assert by_judge["abs_bias_p"].to_list() == [model["abs_bias_p"]] * 3
    assert by_judge["abs_bias_df"].to_list() == [2] * 3
    sig = "yes" if model["abs_bias_p"] < 0.05 else "no"
    assert by_judge["abs_bias_sig"].to_list() == [sig] * 3
    every = got.filter(grouping="all").row(0, named=True)
    assert (every["abs_bias_p"], every["abs_bias_sig"]) == (None, None)
