"""Variance components: hand-worked and pingouin two-factor ANOVA, dense least squares with
missing cells, statsmodels type I sums of squares, and a planted dominant model effect."""

import itertools

import duckdb
import numpy as np
import pandas as pd
import pingouin as pg
import polars as pl
import pytest
import statsmodels.formula.api as smf
from statsmodels.stats.anova import anova_lm

from judgelab.settings import Settings
from schemas.variance_components import SEQUENTIAL as COMPONENTS
from tasks import warehouse
from tasks.rating.variance import FACTORS, variance_components

# a rating study's sequential components with one readout (no order, no readout terms)
RATING = [c for c in COMPONENTS if "order" not in c and "readout" not in c]
COLUMNS = ["study", "kind", "judge", "model", "prompt_level", "scale", "item_id", "score_1to7"]


def _frame(rows: list[tuple]) -> pl.DataFrame:
    """(study, kind, judge, prompt_level, scale, item, score) → an item_scores frame."""
    return pl.DataFrame(
        [(s, k, j, f"m/{j}", p, sc, i, y) for s, k, j, p, sc, i, y in rows],
        schema=COLUMNS,
        orient="row",
    ).with_columns(
        n_ok=pl.lit(1, pl.Int64), score_sd=pl.lit(None, pl.Float64), human_1to7=pl.lit(4.0)
    )


def _crossing(
    judges: int, levels: int, scales: int, items: int, effect, seed: int = 0
) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    rows = [
        ("s", "judge", f"j{j}", f"p{p}", f"s{c}", f"i{i:03d}", float(effect(j, p, c, i, rng)))
        for j, p, c, i in itertools.product(
            range(judges), range(levels), range(scales), range(items)
        )
    ]
    return _frame(rows)


def _by_component(table: pl.DataFrame, study: str = "s") -> dict[str, dict]:
    return {r["component"]: r for r in table.filter(pl.col("study") == study).iter_rows(named=True)}


# 2 judges × 2 prompt levels × 1 scale × 3 items, worked by hand (grand mean 4.75):
# judge means 3.5 / 6 → SS 6·1.25²·2 = 18.75; level means 4 / 5.5 → 6·0.75²·2 = 6.75;
# cell deviations ±0.25 → judge:prompt_level 12·0.0625 = 0.75; within cells 2+2+2+0 = 6,
# of which item (means 4, 4.75, 5.5) 4·0.75²·2 = 4.5, judge:item (±0.25, 0) 0.5, residual 1.
TWO_FACTOR = {
    ("j1", "p1"): (2, 3, 4),
    ("j1", "p2"): (3, 4, 5),
    ("j2", "p1"): (4, 5, 6),
    ("j2", "p2"): (7, 7, 7),
}


def test_two_factor_example_by_hand_and_against_pingouin() -> None:
    frame = _frame(
        [
            ("s", "judge", j, p, "likert7", f"i{k}", float(y))
            for (j, p), ys in TWO_FACTOR.items()
            for k, y in enumerate(ys)
        ]
    )
    got = _by_component(variance_components(frame))
    expected = {
        "judge": (1, 18.75),
        "prompt_level": (1, 6.75),
        "scale": (0, 0.0),  # one scale: no df, no variance
        "item": (2, 4.5),
        "judge:prompt_level": (1, 0.75),
        "judge:scale": (0, 0.0),
        "prompt_level:scale": (0, 0.0),
        "judge:item": (2, 0.5),
        "residual": (4, 1.0),
    }
    assert {c: (r["df"], pytest.approx(r["ss"], abs=1e-12)) for c, r in got.items()} == expected
    assert got["judge"]["eta_sq"] == pytest.approx(18.75 / 32.25)

    aov = pg.anova(frame.to_pandas(), dv="score_1to7", between=["judge", "prompt_level"]).set_index(
        "Source"
    )
    assert got["judge"]["ss"] == pytest.approx(aov.loc["judge", "SS"])
    assert got["prompt_level"]["ss"] == pytest.approx(aov.loc["prompt_level", "SS"])
    assert got["judge:prompt_level"]["ss"] == pytest.approx(aov.loc["judge * prompt_level", "SS"])
    # pingouin's within-cell residual is what item, judge × item and our residual split up
    within = sum(got[c]["ss"] for c in ("item", "judge:item", "residual"))
    assert within == pytest.approx(aov.loc["Residual", "SS"])


def test_dominant_model_effect_gets_the_largest_share_and_shares_sum_to_one() -> None:
    def effect(j, p, c, i, rng):
        return 4 + 1.2 * (j - 1) + 0.05 * p - 0.05 * c + rng.normal(0, 0.1) + 0.02 * (i % 5)

    table = variance_components(_crossing(3, 3, 4, 40, effect))
    shares = {r["component"]: r["eta_sq"] for r in table.iter_rows(named=True)}
    assert list(shares) == RATING  # a rating study's, read one way
    assert max(shares, key=shares.get) == "judge" and shares["judge"] > 0.9
    assert sum(shares.values()) == pytest.approx(1.0, abs=1e-9)
    dfs = dict(table.select("component", "df").iter_rows())
    assert dfs == {
        "judge": 2,
        "prompt_level": 2,
        "scale": 3,
        "item": 39,
        "judge:prompt_level": 4,
        "judge:scale": 6,
        "prompt_level:scale": 6,
        "judge:item": 78,
        "residual": 3 * 3 * 4 * 40 - 1 - (2 + 2 + 3 + 39 + 4 + 6 + 6 + 78),
    }


def _dense_reference(frame: pl.DataFrame) -> list[tuple[str, int, float]]:
    """Type I SS by brute force: dense dummies for every nested model, lstsq + matrix_rank."""
    f = frame.to_pandas()
    f["judge:prompt_level"] = f["judge"] + "|" + f["prompt_level"]
    f["judge:scale"] = f["judge"] + "|" + f["scale"]
    f["prompt_level:scale"] = f["prompt_level"] + "|" + f["scale"]
    f["item"] = f["item_id"]
    f["judge:item"] = f["judge"] + "|" + f["item_id"]
    y = f["score_1to7"].to_numpy()
    blocks = [np.ones((len(f), 1))]
    rss, rank, out = float(((y - y.mean()) ** 2).sum()), 1, []
    for term in RATING[:-1]:  # a rating study's terms
        blocks.append(pd.get_dummies(f[term]).to_numpy(dtype=float))
        x = np.hstack(blocks)
        beta = np.linalg.lstsq(x, y, rcond=None)[0]
        new_rss, new_rank = float(((y - x @ beta) ** 2).sum()), int(np.linalg.matrix_rank(x))
        out.append((term, new_rank - rank, rss - new_rss))
        rss, rank = new_rss, new_rank
    return [*out, ("residual", len(f) - rank, rss)]


def test_missing_cells_match_dense_least_squares_and_statsmodels() -> None:
    def effect(j, p, c, i, rng):
        return 4 + 0.7 * j - 0.3 * p + 0.2 * c * j + 0.4 * np.sin(i) + rng.normal(0, 0.4)

    full = _crossing(3, 2, 2, 15, effect, seed=5)
    items_missing = full.sample(fraction=0.85, seed=3)  # every design and judge × item remains
    assert items_missing.select("judge", "item_id").n_unique() == 3 * 15
    ours = variance_components(items_missing)
    ref = _dense_reference(items_missing)
    assert ours.select("component", "df").rows() == [(c, df) for c, df, _ in ref]
    assert ours["ss"].to_list() == pytest.approx([ss for *_, ss in ref], abs=1e-8)

    formula = (
        "score_1to7 ~ C(judge) + C(prompt_level) + C(scale) + C(item_id)"
        " + C(judge):C(prompt_level) + C(judge):C(scale) + C(prompt_level):C(scale)"
        " + C(judge):C(item_id)"
    )
    sm = anova_lm(smf.ols(formula, items_missing.to_pandas()).fit(), typ=1)
    assert ours["ss"].to_list() == pytest.approx(sm["sum_sq"].to_list(), abs=1e-8)
    assert ours["df"].to_list() == sm["df"].astype(int).to_list()

    # a whole judge × prompt-level cell never scored: one interaction df fewer, still exact
    cell_missing = items_missing.filter(
        ~((pl.col("judge") == "j0") & (pl.col("prompt_level") == "p0"))
    )
    ours = variance_components(cell_missing)
    ref = _dense_reference(cell_missing)
    assert ours.select("component", "df").rows() == [(c, df) for c, df, _ in ref]
    assert dict(ours.select("component", "df").iter_rows())["judge:prompt_level"] == 1
    assert ours["ss"].to_list() == pytest.approx([ss for *_, ss in ref], abs=1e-8)
    assert ours["eta_sq"].sum() == pytest.approx(1.0, abs=1e-9)


def test_one_judge_gets_zero_model_share_and_baselines_are_left_out() -> None:
    def effect(j, p, c, i, rng):
        return 3 + 0.5 * p + 0.1 * i + rng.normal(0, 0.2)

    frame = _crossing(1, 3, 2, 10, effect)
    baseline = _frame(
        [("s", "baseline", "vader", "none", "native", f"i{i:03d}", 7.0) for i in range(10)]
    )
    table = variance_components(pl.concat([frame, baseline]))
    got = _by_component(table)
    for c in ("judge", "judge:prompt_level", "judge:scale", "judge:item"):
        assert (got[c]["df"], got[c]["ss"], got[c]["eta_sq"]) == (0, 0.0, 0.0)
    assert table.equals(variance_components(frame))
    assert table["eta_sq"].sum() == pytest.approx(1.0, abs=1e-9)


def test_studies_are_separate_and_constant_scores_have_no_shares() -> None:
    constant = _crossing(2, 1, 1, 4, lambda *_: 5.0).with_columns(study=pl.lit("flat"))
    varied = _crossing(2, 2, 1, 4, lambda j, p, c, i, rng: 2.0 + j + i)
    table = variance_components(pl.concat([varied, constant]))
    assert table["study"].unique().sort().to_list() == ["flat", "s"]
    assert table.filter(pl.col("study") == "flat")["eta_sq"].is_null().all()
    assert _by_component(variance_components(varied))["judge"]["ss"] == pytest.approx(
        _by_component(table)["judge"]["ss"]
    )


def test_report_orders_components_by_share(settings: Settings) -> None:
    def effect(j, p, c, i, rng):
        return 4 + 1.5 * j + 0.1 * i + rng.normal(0, 0.1)

    warehouse.write_table(
        settings, variance_components(_crossing(2, 2, 2, 6, effect)), "variance_components", "s"
    )
    con = duckdb.connect()
    for name in ("staging/stg_variance_components", "reports/tbl_variance_components"):
        con.execute(warehouse.render_view(warehouse.SQL_DIR / f"{name}.sql", settings))
    report = con.sql("select component, eta_sq_pct from tbl_variance_components").pl()
    assert report["component"][0] == "judge"
    assert report["eta_sq_pct"].to_list() == sorted(report["eta_sq_pct"].to_list(), reverse=True)
    assert report["eta_sq_pct"].sum() == pytest.approx(100, abs=0.5)


def test_tables_put_random_effects_beside_the_sequential_split_and_project_a_d_study(
    settings: Settings,
) -> None:
    """A planted judge effect (σ² of three judge offsets) and item effect: the random_ems rows
    sit beside the type1_anova rows (which stay as they were), their σ² equal the EMS solution
    of the same crossing (tasks/gtheory), and tbl_d_study holds 5 × 3 × 4 projections whose
    Eρ² grows with every facet's count and equals the G-study's own at its sizes."""
    from tasks import gtheory
    from tasks.rating.variance import tables

    def effect(j, p, c, i, rng):
        return 4 + (j - 1) * 1.0 + ((i * 7) % 5 - 2) * 0.4 + rng.normal(0, 0.3)

    frame = _crossing(3, 2, 2, 20, effect)
    out = tables(frame)
    comp = out["variance_components"]
    type1 = comp.filter(pl.col("method") == "type1_anova")
    assert type1.drop("method", "ms", "variance", "variance_share", "note").equals(
        variance_components(frame).drop("method", "ms", "variance", "variance_share", "note")
    )
    random = {r["component"]: r for r in comp.filter(pl.col("method") == "random_ems").to_dicts()}
    assert len(random) == 15
    cells = frame.rename({"score_1to7": "y"})
    expected = {r["component"]: r["variance"] for r in gtheory.g_study(cells, FACTORS, "y")[0]}
    for name, v in expected.items():
        assert random[name]["variance"] == pytest.approx(v)
    assert sum(r["variance_share"] for r in random.values()) == pytest.approx(1.0)
    assert max(random, key=lambda c: random[c]["variance"]) in {"judge", "item"}
    assert "balanced subset: 20 of 20 items" in random["item"]["note"]

    d = out["d_study"]
    assert d.height == 5 * 3 * 4 and d["n_orders"].is_null().all()
    at_g = d.filter((pl.col("n_judges") == 3) & (pl.col("n_prompt_levels") == 2))
    at_g = at_g.filter(pl.col("n_scales") == 2).to_dicts()[0]
    own = gtheory.d_study(expected, {"judge": 3, "prompt_level": 2, "scale": 2})
    assert at_g["g_relative"] == pytest.approx(own["g_relative"])
    assert at_g["phi"] <= at_g["g_relative"]
    for facet in ("n_judges", "n_prompt_levels", "n_scales"):
        others = [c for c in ("n_judges", "n_prompt_levels", "n_scales") if c != facet]
        steps = d.sort(facet).group_by(others).agg(pl.col("g_relative"), pl.col("phi"))
        for g, phi in steps.select("g_relative", "phi").rows():
            assert g == sorted(g) and phi == sorted(phi)

    for name, frame_ in out.items():
        warehouse.write_table(settings, frame_, name, "s")
    con = duckdb.connect()
    for name in (
        "staging/stg_variance_components",
        "reports/tbl_variance_components",
        "staging/stg_d_study",
        "reports/tbl_d_study",
    ):
        con.execute(warehouse.render_view(warehouse.SQL_DIR / f"{name}.sql", settings))
    view = con.sql("select * from tbl_variance_components").pl()
    assert view.columns[:4] == ["study", "component", "df", "eta_sq_pct"]  # appended after
    assert view["method"].to_list()[0] == "type1_anova"
    assert view.filter(pl.col("method") == "random_ems")["variance_pct"].sum() == pytest.approx(
        100, abs=0.5
    )
    assert con.sql("select count(*) from tbl_d_study").fetchall() == [(60,)]


def test_a_missing_cell_drops_the_item_from_the_g_study_only() -> None:
    from tasks.rating.variance import tables

    def effect(j, p, c, i, rng):
        return 4 + j + rng.normal(0, 0.5)

    frame = _crossing(2, 2, 1, 8, effect)
    holed = frame.filter(~((pl.col("item_id") == "i003") & (pl.col("judge") == "j0")))
    comp = tables(holed)["variance_components"]
    random = comp.filter(pl.col("method") == "random_ems")
    item = random.filter(pl.col("component") == "item")["note"].item()
    assert "7 of 8 items" in item and "1 of 1 scale levels" in item
    assert "scale" not in random["component"].to_list()  # one scale: not estimable
    # the sequential split still uses every row
    type1 = comp.filter(pl.col("method") == "type1_anova")
    assert type1["df"].sum() == holed.height - 1


def test_a_judge_missing_most_items_is_left_out_by_name() -> None:
    from tasks.rating.variance import tables

    def effect(j, p, c, i, rng):
        return 4 + rng.normal(0, 0.5)

    frame = _crossing(3, 2, 1, 10, effect)
    holed = frame.filter(~((pl.col("judge") == "j2") & (pl.col("item_id") < "i006")))
    random = tables(holed)["variance_components"].filter(pl.col("method") == "random_ems")
    note = random.filter(pl.col("component") == "item")["note"].item()
    assert "10 of 10 items, 2 of 3 judge levels" in note and "(left out: judge j2)" in note


def test_a_second_readout_is_a_factor_of_both_decompositions_and_the_d_study() -> None:
    """A study reading each call two ways (readouts = ["answer", "expected"]): the readout is a
    fourth design factor. With a planted readout offset and missing items, the sequential SS
    equal statsmodels' type I ANOVA in the order judge, prompt level, scale, readout, item,
    the six two-way terms, judge × item; the G-study's σ² equal the EMS solution of the
    four-facet crossing; the D-study adds 1–2 readouts averaged."""
    from tasks import gtheory
    from tasks.rating.variance import tables

    rng = np.random.default_rng(11)
    base = _crossing(2, 2, 2, 16, lambda j, p, c, i, r: 4 + 0.5 * j + 0.3 * np.cos(i), seed=2)
    offset = {"answer": 0.0, "expected": -0.8}
    frame = pl.concat(
        base.with_columns(
            readout=pl.lit(r),
            score_1to7=pl.col("score_1to7") + offset[r] + rng.normal(0, 0.3, base.height),
        )
        for r in ("answer", "expected")
    )
    out = tables(frame)
    type1 = out["variance_components"].filter(pl.col("method") == "type1_anova")
    expected_order = [
        "judge", "prompt_level", "scale", "readout", "item",
        "judge:prompt_level", "judge:scale", "judge:readout",
        "prompt_level:scale", "prompt_level:readout", "scale:readout",
        "judge:item", "residual",
    ]  # fmt: skip
    assert type1["component"].to_list() == expected_order
    shares = dict(type1.select("component", "eta_sq").iter_rows())
    assert shares["readout"] > 0.1  # the planted offset: 0.8² / 4 against σ² 0.09 noise

    sampled = frame.sample(fraction=0.8, seed=4)  # missing cells: order matters, still exact
    formula = (
        "score_1to7 ~ C(judge) + C(prompt_level) + C(scale) + C(readout) + C(item_id)"
        " + C(judge):C(prompt_level) + C(judge):C(scale) + C(judge):C(readout)"
        " + C(prompt_level):C(scale) + C(prompt_level):C(readout) + C(scale):C(readout)"
        " + C(judge):C(item_id)"
    )
    sm = anova_lm(smf.ols(formula, sampled.to_pandas()).fit(), typ=1)
    ours = variance_components(sampled)
    assert ours["component"].to_list() == expected_order
    assert ours["ss"].to_list() == pytest.approx(sm["sum_sq"].to_list(), abs=1e-8)
    assert ours["df"].to_list() == sm["df"].astype(int).to_list()

    random = out["variance_components"].filter(pl.col("method") == "random_ems")
    facets = (*FACTORS, "readout")
    ems = gtheory.g_study(frame.rename({"score_1to7": "y"}), facets, "y")[0]
    assert len(ems) == 2**5 - 1
    got = dict(random.select("component", "variance").iter_rows())
    assert got == pytest.approx({r["component"]: r["variance"] for r in ems})
    assert got["readout"] > 0.2  # σ²(readout) of two levels 0.8 apart: 0.32

    d = out["d_study"]
    assert d.height == 5 * 3 * 4 * 2 and sorted(d["n_readouts"].unique()) == [1, 2]
    one = d.filter(pl.col("n_readouts") == 1)["phi"].to_numpy()
    two = d.filter(pl.col("n_readouts") == 2)["phi"].to_numpy()
    assert (two > one).all()  # averaging the readouts' offsets away raises Φ


def test_one_readout_keeps_the_three_factor_decomposition() -> None:
    """A study with the default single readout has no readout component and no n_readouts."""
    from tasks.rating.variance import tables

    frame = _crossing(2, 2, 2, 10, lambda j, p, c, i, r: 4 + j + r.normal(0, 0.3))
    out = tables(frame.with_columns(readout=pl.lit("answer")))
    assert not out["variance_components"]["component"].str.contains("readout").any()
    assert out["d_study"]["n_readouts"].is_null().all()
