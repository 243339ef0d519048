"""Ensembles: cancelling biases, counting qualifying combinations, seeded samples, holdout,
members drawn from LLM judge designs only unless baselines are asked for, no model twice in a
model ensemble (ensemble_distinct), Figure 5's triples again without the outlier scale."""

import itertools
from pathlib import Path

import duckdb
import numpy as np
import polars as pl
import pytest

from judgelab.settings import PROJECT_ROOT, Settings
from judgelab.study import Analysis, load_study
from tasks.rating.ensembles import (
    RULES,
    draw,
    ensemble_holdout,
    ensembles,
    halves,
    matrix,
    rule,
)
from tasks.warehouse import ensure_tables, read_table, render_view, write_table

HUMAN = 4.0


def _item_scores(
    devs: dict[tuple[str, str, str], list[float | None]],
    baselines: tuple[str, ...] = (),
    models: dict[str, str] | None = None,
) -> pl.DataFrame:
    """(judge, prompt_level, scale) → score − human per item (None = not scored); human = 4.
    Judges named in `baselines` are of kind "baseline"; a judge's model is m-<judge> unless
    `models` names it."""
    models = models or {}
    rows = [
        (
            "s",
            "baseline" if judge in baselines else "judge",
            judge,
            models.get(judge, f"m-{judge}"),
            level,
            scale,
            f"i{i:02d}",
            1,
            HUMAN + d,
            None,
            HUMAN,
        )
        for (judge, level, scale), ds in devs.items()
        for i, d in enumerate(ds)
        if d is not None
    ]
    return pl.DataFrame(
        rows,
        schema={
            "study": pl.String,
            "kind": pl.String,
            "judge": pl.String,
            "model": pl.String,
            "prompt_level": pl.String,
            "scale": pl.String,
            "item_id": pl.String,
            "n_ok": pl.Int64,
            "score_1to7": pl.Float64,
            "score_sd": pl.Float64,
            "human_1to7": pl.Float64,
        },
        orient="row",
    )


def _cell(table: pl.DataFrame, strategy: str, size: int, pool: str = "judges") -> dict:
    (row,) = table.filter(pool=pool, strategy=strategy, size=size).iter_rows(named=True)
    return row


def _grid(judges: int = 3, levels: int = 2, scales: int = 2) -> pl.DataFrame:
    rng = np.random.default_rng(5)
    return _item_scores(
        {
            (f"j{j}", f"p{p}", f"s{s}"): list(rng.uniform(-1, 1, 6))
            for j in range(judges)
            for p in range(levels)
            for s in range(scales)
        }
    )


def test_opposite_biases_cancel_in_a_model_free_pair() -> None:
    t = ensembles(
        _item_scores({("a", "base", "likert7"): [1.0] * 4, ("b", "base", "unit"): [-1.0] * 4})
    )
    row = _cell(t, "model_free", 2)
    assert (row["n_possible"], row["n_evaluated"]) == (1, 1)
    assert row["member_abs_bias"] == pytest.approx(1.0)
    assert row["ensemble_abs_bias"] == pytest.approx(0.0)
    assert row["bias_reduction_pct"] == pytest.approx(100.0)
    assert row["ensemble_mae"] == pytest.approx(0.0) and row["mae_reduction_pct"] == 100.0
    assert row["share_beats_best_member"] == 1.0
    assert _cell(t, "model_fixed", 2)["n_possible"] == 0  # the two scales differ


def test_designs_with_one_bias_gain_nothing_from_averaging() -> None:
    same = [0.5, 0.5, 0.5, 0.5]
    t = ensembles(_item_scores({("j", "base", s): same for s in ("likert7", "unit", "pct100")}))
    row = _cell(t, "scale", 3)
    assert row["n_possible"] == 1
    assert row["ensemble_abs_bias"] == pytest.approx(0.5)
    assert row["bias_reduction_pct"] == pytest.approx(0.0, abs=1e-9)
    assert row["share_beats_best_member"] == 0.0  # equal is not better


def test_members_are_compared_on_the_items_all_of_them_scored() -> None:
    # a is +2 on item 0 only it scored; on the common items 1–2 a is +1 and b is −1
    t = ensembles(
        _item_scores(
            {("a", "base", "x"): [2.0, 1.0, 1.0, None], ("b", "base", "x"): [None, -1.0, -1.0, 3.0]}
        )
    )
    row = _cell(t, "model_fixed", 2)
    assert row["member_abs_bias"] == pytest.approx(1.0)
    assert row["ensemble_abs_bias"] == pytest.approx(0.0)


def test_counts_follow_the_strategy_rules() -> None:
    t = ensembles(_grid(judges=3, levels=2, scales=2))
    assert _cell(t, "model_fixed", 3)["n_possible"] == 4  # one triple per prompt × scale
    assert _cell(t, "model_fixed", 2)["n_possible"] == 4 * 3
    assert _cell(t, "model_free", 3)["n_possible"] == 4**3  # one of 4 designs per judge
    assert _cell(t, "model_free", 2)["n_possible"] == 3 * 4**2


def _with_vader(grid: pl.DataFrame, shift: float = 0.0) -> pl.DataFrame:
    """The grid plus a VADER baseline scoring the same items as j0/p0/s0 (+ shift)."""
    vader = grid.filter(judge="j0", prompt_level="p0", scale="s0").with_columns(
        kind=pl.lit("baseline"),
        judge=pl.lit("vader"),
        model=pl.lit("vader"),
        prompt_level=pl.lit("none"),
        scale=pl.lit("compound"),
        score_1to7=pl.col("score_1to7") + shift,
    )
    return pl.concat([grid, vader])


def test_baselines_are_never_members_by_default() -> None:
    grid = _grid(judges=3, levels=2, scales=2)
    t = ensembles(_with_vader(grid, shift=2.0))
    assert set(t["pool"]) == {"judges"}
    assert t.drop("pool").equals(ensembles(grid).drop("pool"))  # as if VADER were absent
    assert _cell(t, "model_free", 1)["n_possible"] == 12  # the 12 judge designs, not 13
    assert _cell(t, "model_free", 3)["n_possible"] == 4**3


def test_a_baseline_joins_the_labelled_pool_only_where_its_columns_fit() -> None:
    grid = _grid(judges=3, levels=2, scales=2)
    t = ensembles(_with_vader(grid), baselines=True)
    assert t["pool"].unique(maintain_order=True).to_list() == ["judges", "judges+baselines"]
    assert t.filter(pool="judges").drop("pool").equals(ensembles(grid).drop("pool"))
    mixed = "judges+baselines"
    assert _cell(t, "model_free", 1, mixed)["n_possible"] == 13
    assert _cell(t, "model_free", 3, mixed)["n_possible"] == 4**3 + 3 * 4**2  # with or without
    assert _cell(t, "model_fixed", 3, mixed)["n_possible"] == 4  # its level and scale are its own


def test_one_judge_and_vader_make_no_model_ensemble() -> None:
    """The default line-up (one LLM judge + VADER): every model-strategy ensemble of two or
    more would pair the judge with the classifier, so none qualifies."""
    judge = {("gpt", p, s): [0.5, -0.1, 0.3] for p in ("base", "icl") for s in ("likert7", "unit")}
    scores = _item_scores(judge | {("vader", "none", "compound"): [-0.8, 0.2, -0.4]}, ("vader",))
    t = ensembles(scores)
    model = t.filter(pl.col("strategy").is_in(["model_free", "model_fixed"]), pl.col("size") >= 2)
    assert model.height == 8 and model["n_possible"].to_list() == [0] * 8
    assert model["n_evaluated"].to_list() == [0] * 8
    assert model["bias_reduction_pct"].null_count() == 8
    assert _cell(t, "model_free", 1)["n_possible"] == 4  # the judge's four designs alone

    labelled = ensembles(scores, baselines=True).filter(pool="judges+baselines")
    pair = _cell(labelled, "model_free", 2, "judges+baselines")
    assert pair["n_possible"] == 4  # each judge design with VADER, shown under its own label
    assert _cell(labelled, "model_fixed", 2, "judges+baselines")["n_possible"] == 0


def test_members_yardstick_is_the_mean_of_each_members_own_abs_bias() -> None:
    """Three judges on one prompt × scale; per item deviations chosen so that bias ≠ MAE.
    a: bias +0.6 (MAE 0.8), b: bias −0.2 (MAE 0.2), c: bias +0.1 (MAE 0.3)."""
    devs = {
        ("a", "base", "x"): [1.4, -0.2],
        ("b", "base", "x"): [-0.2, -0.2],
        ("c", "base", "x"): [0.4, -0.2],
    }
    t = ensembles(_item_scores(devs))
    bias = {"a": 0.6, "b": -0.2, "c": 0.1}
    # size 3: members' yardstick = (|.6| + |−.2| + |.1|) / 3 = 0.3, not |mean| = 1/6, not the
    # median 0.2; the ensemble's |bias| is |0.5 / 3|
    triple = _cell(t, "model_fixed", 3)
    assert triple["member_abs_bias"] == pytest.approx(0.3)
    assert triple["ensemble_abs_bias"] == pytest.approx(0.5 / 3)
    assert triple["bias_reduction_pct"] == pytest.approx(100 * (1 - (0.5 / 3) / 0.3))
    # size 2: mean over the three pairs of the mean of the pair members' |bias|
    pairs = list(itertools.combinations(bias, 2))
    pair = _cell(t, "model_fixed", 2)
    assert pair["member_abs_bias"] == pytest.approx(
        np.mean([np.mean([abs(bias[x]), abs(bias[y])]) for x, y in pairs])
    )
    assert pair["ensemble_abs_bias"] == pytest.approx(
        np.mean([abs(bias[x] + bias[y]) / 2 for x, y in pairs])
    )
    # the members' MAE is likewise each member's own MAE, averaged
    assert triple["member_mae"] == pytest.approx((0.8 + 0.2 + 0.3) / 3)


def test_size_one_is_the_single_designs() -> None:
    """Size 1 counts the eligible single designs (judges only) and reports their mean |bias|
    as both member and ensemble |bias|: the curve's starting point."""
    devs = {
        ("a", "base", "x"): [1.4, -0.2],
        ("b", "base", "x"): [-0.2, -0.2],
        ("c", "icl", "y"): [0.4, -0.2],
        ("vader", "none", "compound"): [3.0, 3.0],
    }
    t = ensembles(_item_scores(devs, ("vader",)))
    for strategy in ("model_free", "model_fixed"):
        one = _cell(t, strategy, 1)
        assert (one["n_possible"], one["n_evaluated"]) == (3, 3)
        assert one["member_abs_bias"] == pytest.approx((0.6 + 0.2 + 0.1) / 3)
        assert one["ensemble_abs_bias"] == pytest.approx(one["member_abs_bias"])
        assert one["member_mae"] == pytest.approx((0.8 + 0.2 + 0.3) / 3)
        assert one["bias_reduction_pct"] == pytest.approx(0.0, abs=1e-9)
        assert one["share_beats_best_member"] == 0.0
    assert t.filter(strategy="scale")["size"].to_list() == [3]  # not on the size curve
    with_vader = ensembles(_item_scores(devs, ("vader",)), baselines=True)
    one = _cell(with_vader, "model_free", 1, "judges+baselines")
    assert one["n_possible"] == 4
    assert one["member_abs_bias"] == pytest.approx((0.6 + 0.2 + 0.1 + 3.0) / 4)


def test_impossible_cells_are_rows_with_zero_possible_and_nulls() -> None:
    t = ensembles(_grid(judges=3, levels=2, scales=2))
    assert t.height == 5 + 5 + 1 + 1  # every strategy × size appears, sizes 1–5 for models
    for strategy, size in [("scale", 3), ("prompt", 3), ("model_free", 4), ("model_fixed", 5)]:
        row = _cell(t, strategy, size)
        assert (row["n_possible"], row["n_evaluated"]) == (0, 0)
        assert row["ensemble_abs_bias"] is None and row["bias_reduction_pct"] is None


@pytest.mark.parametrize("strategy", list(RULES))
@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("distinct", ["model", "judge"])
def test_enumeration_matches_brute_force(strategy: str, k: int, distinct: str) -> None:
    """Drawing by rank yields exactly the qualifying combinations, each once; j0 and j1 are
    one model (m-shared), so with distinct = "model" no model ensemble holds both."""
    grid = _grid(judges=4, levels=3, scales=3)
    grid = grid.with_columns(
        model=pl.when(pl.col("judge").is_in(["j0", "j1"])).then(pl.lit("m-shared"))
        .otherwise("model")
    )  # fmt: skip
    designs = matrix(grid).designs
    shared, differ = RULES[strategy]
    differ = {"model": distinct}.get(differ, differ)
    assert rule(strategy, distinct) == (shared, differ)
    rows = designs.to_dicts()
    expected = {
        c
        for c in itertools.combinations(range(len(rows)), k)
        if all(len({rows[i][col] for i in c}) == 1 for col in shared)
        and len({rows[i][differ] for i in c}) == k
    }
    if strategy.startswith("model"):  # the shared model makes a difference
        models = {frozenset(rows[i]["model"] for i in c) for c in expected}
        assert all(len(m) == k for m in models) == (distinct == "model")
    cell = draw(designs, strategy, k, max_ensembles=10**6, seed="x", distinct=distinct)
    got = [tuple(sorted(m)) for m in cell.members.tolist()]
    assert cell.n_possible == len(expected) == len(got)
    assert set(got) == expected


def test_sampling_is_seeded_distinct_and_capped() -> None:
    designs = matrix(_grid(judges=3, levels=2, scales=2)).designs
    a = draw(designs, "model_free", 3, max_ensembles=10, seed="1")
    assert a.n_possible == 64 and a.members.shape == (10, 3)
    assert np.array_equal(a.members, draw(designs, "model_free", 3, 10, seed="1").members)
    assert not np.array_equal(a.members, draw(designs, "model_free", 3, 10, seed="2").members)
    assert len({tuple(m) for m in a.members.tolist()}) == 10
    judges = designs["judge"].to_numpy()
    assert all(len(set(judges[m])) == 3 for m in a.members)

    scores = _grid(judges=3, levels=2, scales=2)
    t = ensembles(scores, max_ensembles=10, seed=3)
    assert _cell(t, "model_free", 3)["n_evaluated"] == 10
    assert _cell(t, "model_fixed", 3)["n_evaluated"] == 4  # fewer than the cap: all
    assert t.equals(ensembles(scores, max_ensembles=10, seed=3))


def test_holdout_picks_the_triple_best_on_half_a() -> None:
    """On A the triple j1+j2+j3 is unbiased; on B it is the worst, so choosing on B would
    pick another triple."""
    n = 10
    half_a, _ = halves(n, seed=0)
    on_a = {"j1": 0.1, "j2": -0.1, "j3": 0.0, "j4": 2.0}
    on_b = {"j1": 1.0, "j2": 1.0, "j3": 1.0, "j4": -2.0}
    devs = {
        (j, "base", "likert7"): [on_a[j] if i in half_a else on_b[j] for i in range(n)]
        for j in on_a
    }
    t = ensemble_holdout(_item_scores(devs))
    row = t.filter(strategy="model_free").row(0, named=True)
    assert row["members"] == "j1/base/likert7 + j2/base/likert7 + j3/base/likert7"
    assert (row["n_items_a"], row["n_items_b"], row["n_evaluated"]) == (5, 5, 4)
    assert row["abs_bias_a"] == pytest.approx(0.0)
    assert row["abs_bias_b"] == pytest.approx(1.0)
    assert row["triples_abs_bias_b"] == pytest.approx((1 + 0 + 0 + 0) / 4)
    assert row["best_single"] == "j3/base/likert7"
    assert row["single_abs_bias_b"] == pytest.approx(1.0)
    # no triple of scales or prompt levels exists: a row of nulls, not a missing row
    assert t.filter(strategy="scale").row(0, named=True)["members"] is None


def test_holdout_draws_from_judges_unless_baselines_are_asked_for() -> None:
    devs = {
        (j, "base", "likert7"): [0.1 * i - 0.3 * k for i in range(8)]
        for k, j in enumerate(["j1", "j2", "j3", "j4"])
    }
    vader = {("vader", "none", "compound"): [0.0] * 8}
    judges_only = ensemble_holdout(_item_scores(devs))
    t = ensemble_holdout(_item_scores(devs | vader, ("vader",)))
    assert t.equals(judges_only)  # VADER changes nothing, not even the halves
    assert not any("vader" in (m or "") for m in [*t["members"], *t["best_single"]])
    both = ensemble_holdout(_item_scores(devs | vader, ("vader",)), baselines=True)
    assert both.filter(pool="judges").equals(judges_only)
    free = both.filter(pool="judges+baselines", strategy="model_free").row(0, named=True)
    assert (free["n_evaluated"], judges_only.row(0, named=True)["n_evaluated"]) == (10, 4)


def _views(settings: Settings, names: list[str]) -> duckdb.DuckDBPyConnection:
    """The named views, after stg_rating_metrics (the ensemble views count the designs without a
    scored item there; an empty part when the test wrote none) and, for the two report views
    that select from it, fct_ensembles."""
    ensure_tables(settings)
    con = duckdb.connect()
    marts = ["fct_ensembles"] if {"tbl_ensembles", "tbl_ensemble_size"} & set(names) else []
    names = (
        [n for n in names if n.startswith("stg_")]
        + marts
        + [n for n in names if not n.startswith("stg_")]
    )
    for name in ["stg_rating_metrics", *names]:
        layer = {"stg": "staging", "fct": "marts"}.get(name[:3], "reports")
        con.execute(render_view(Path(PROJECT_ROOT / "sql" / layer / f"{name}.sql"), settings))
    return con


def test_report_views_round_and_select(settings: Settings) -> None:
    scores = _item_scores(
        {
            ("a", "base", "likert7"): [1.0] * 4,
            ("b", "base", "likert7"): [-1.0] * 4,
            ("c", "base", "likert7"): [1 / 3] * 4,
        }
    )
    write_table(settings, ensembles(scores), "ensembles", "s")
    write_table(settings, ensemble_holdout(scores), "ensemble_holdout", "s")
    con = _views(
        settings,
        [
            "stg_ensembles",
            "stg_ensemble_holdout",
            "tbl_ensembles",
            "tbl_ensemble_size",
            "tbl_ensemble_holdout",
        ],
    )
    triples = con.sql("select * from tbl_ensembles").pl()
    assert triples["strategy"].to_list() == ["model_free", "model_fixed", "scale", "prompt"]
    assert set(triples["pool"]) == {"judges"}
    free = triples.row(0, named=True)
    # members |1|, |−1|, |1/3| average 0.778; the triple's bias is 1/9 → 85.7% less
    assert (free["member_abs_bias"], free["ensemble_abs_bias"]) == (0.778, 0.111)
    assert free["bias_reduction_pct"] == 85.7 and free["beats_best_member_pct"] == 100.0
    sizes = con.sql("select strategy, size, n_possible from tbl_ensemble_size").fetchall()
    assert sizes[:5] == [
        ("model_free", 1, 3),
        ("model_free", 2, 3),
        ("model_free", 3, 1),
        ("model_free", 4, 0),
        ("model_free", 5, 0),
    ]
    assert len(sizes) == 10
    one = con.sql("select * from tbl_ensemble_size where size = 1 limit 1").pl().row(0, named=True)
    assert one["member_abs_bias"] == one["ensemble_abs_bias"] == 0.778  # (1 + 1 + 1/3) / 3
    holdout = con.sql("select members, abs_bias_a from tbl_ensemble_holdout").fetchall()
    assert holdout[0] == ("a/base/likert7 + b/base/likert7 + c/base/likert7", 0.111)


def test_report_views_label_the_baseline_pool_apart(settings: Settings) -> None:
    scores = _item_scores(
        {
            ("gpt", "base", "likert7"): [1.0] * 4,
            ("gpt", "icl", "likert7"): [0.5] * 4,
            ("vader", "none", "compound"): [-1.0] * 4,
        },
        ("vader",),
    )
    write_table(settings, ensembles(scores, baselines=True), "ensembles", "s")
    write_table(settings, ensemble_holdout(scores, baselines=True), "ensemble_holdout", "s")
    con = _views(
        settings, ["stg_ensembles", "stg_ensemble_holdout", "tbl_ensemble_size", "tbl_ensembles"]
    )
    curve = con.sql(
        "select pool, size, n_possible, ensemble_abs_bias from tbl_ensemble_size "
        "where strategy = 'model_free'"
    ).fetchall()
    # one judge: its two designs alone; VADER only pairs with it in the labelled pool
    assert curve == [
        ("judges", 1, 2, 0.75),
        ("judges", 2, 0, None),
        ("judges", 3, 0, None),
        ("judges", 4, 0, None),
        ("judges", 5, 0, None),
        ("judges+baselines", 1, 3, round((1 + 0.5 + 1) / 3, 3)),
        ("judges+baselines", 2, 2, round((0 + 0.25) / 2, 3)),
        ("judges+baselines", 3, 0, None),
        ("judges+baselines", 4, 0, None),
        ("judges+baselines", 5, 0, None),
    ]
    pools = con.sql("select distinct pool from tbl_ensembles order by all").fetchall()
    assert pools == [("judges",), ("judges+baselines",)]


# two judges of one model (say one model at two temperatures) and two other models, one
# prompt × scale: a1 and a2 both +0.9, b −0.6, c −0.3
SAME_MODEL = {
    "devs": {(j, "base", "likert7"): [d] * 4 for j, d in
             {"a1": 0.9, "a2": 0.9, "b": -0.6, "c": -0.3}.items()},
    "models": {"a1": "openai/o4-mini", "a2": "openai/o4-mini"},
}  # fmt: skip


def test_no_model_twice_by_default_and_judges_on_request() -> None:
    """distinct = "model" (the paper's rule): the only triples are a1 or a2 with b and c,
    which cancel; distinct = "judge" adds a1 + a2 + b and a1 + a2 + c."""
    scores = _item_scores(SAME_MODEL["devs"], models=SAME_MODEL["models"])
    by_model = ensembles(scores)
    assert by_model.equals(ensembles(scores, distinct="model"))  # the default
    by_judge = ensembles(scores, distinct="judge")
    for strategy in ("model_free", "model_fixed"):
        model, judge = _cell(by_model, strategy, 3), _cell(by_judge, strategy, 3)
        assert (model["n_possible"], judge["n_possible"]) == (2, 4)
        assert model["ensemble_abs_bias"] == pytest.approx(0.0)
        assert model["member_abs_bias"] == pytest.approx((0.9 + 0.6 + 0.3) / 3)
        # judge: the two cancelling triples, |0.9 + 0.9 − 0.6| / 3 and |0.9 + 0.9 − 0.3| / 3
        assert judge["ensemble_abs_bias"] == pytest.approx((0 + 0 + 0.4 + 0.5) / 4)
        # pairs: e2 of bucket sizes (2, 1, 1) = 5 without a1 + a2, C(4, 2) = 6 with it
        pairs = [_cell(t, strategy, 2)["n_possible"] for t in (by_model, by_judge)]
        assert pairs == [5, 6]
        assert _cell(by_model, strategy, 4)["n_possible"] == 0
        assert _cell(by_judge, strategy, 4)["n_possible"] == 1
    # the holdout draws its triples by the same rule
    holdout = ensemble_holdout(scores).filter(strategy="model_free").row(0, named=True)
    assert holdout["n_evaluated"] == 2 and "a1/base/likert7 + a2" not in holdout["members"]
    both = ensemble_holdout(scores, distinct="judge").filter(strategy="model_free")
    assert both.row(0, named=True)["n_evaluated"] == 4


def test_ensemble_distinct_is_a_study_setting_passed_to_the_stage(settings: Settings) -> None:
    assert Analysis().ensemble_distinct == "model"
    with pytest.raises(ValueError, match="ensemble_distinct"):
        Analysis(ensemble_distinct="design")
    from tasks.rating import stages

    base = load_study(PROJECT_ROOT / "studies" / "sentiment.toml")
    scores = _item_scores(SAME_MODEL["devs"], models=SAME_MODEL["models"])
    write_table(settings, scores.with_columns(study=pl.lit(base.name)), "item_scores", base.name)
    counts = {}
    for distinct in ("model", "judge"):
        analysis = base.analysis.model_copy(update={"ensemble_distinct": distinct})
        stages.agreement_stage.fn(base.model_copy(update={"analysis": analysis}), settings)
        table = read_table(settings, "ensembles", base.name)
        counts[distinct] = _cell(table, "model_free", 3)["n_possible"]
    assert counts == {"model": 2, "judge": 4}


# judges a, b, c on two scales: on likert7 +0.3, −0.3, 0 (a triple cancels), on the outlier
# bipolar3 +1 each (a triple keeps it)
OUTLIER = {
    (j, "base", s): [d if s == "likert7" else 1.0] * 4
    for j, d in {"a": 0.3, "b": -0.3, "c": 0.0}.items()
    for s in ("likert7", "bipolar3")
}


def test_figure5_triples_again_without_the_outlier_scale() -> None:
    scores = _item_scores(OUTLIER)
    t = ensembles(scores, outlier_scale="bipolar3")
    assert t.filter(subset="all").drop("subset").equals(ensembles(scores).drop("subset"))
    without = t.filter(subset="without bipolar3")
    assert without["size"].to_list() == [3] * 4  # Figure 5's triples only, every strategy
    fixed = _cell(without, "model_fixed", 3)
    assert (fixed["n_possible"], fixed["ensemble_abs_bias"]) == (1, pytest.approx(0.0))
    assert fixed["member_abs_bias"] == pytest.approx(0.2) and fixed["bias_reduction_pct"] == 100
    every = _cell(t.filter(subset="all"), "model_fixed", 3)
    assert every["n_possible"] == 2  # one triple per scale: 0 and 1
    assert every["ensemble_abs_bias"] == pytest.approx(0.5)
    assert every["member_abs_bias"] == pytest.approx((0.2 + 1.0) / 2)
    assert _cell(without, "model_free", 3)["n_possible"] == 1  # 2³ with both scales
    assert _cell(t.filter(subset="all"), "model_free", 3)["n_possible"] == 8
    assert _cell(without, "scale", 3)["n_possible"] == 0
    # no variant for a scale the study does not have, or without an outlier scale
    assert set(ensembles(scores, outlier_scale="pct100")["subset"]) == {"all"}
    assert set(ensembles(scores)["subset"]) == {"all"}


def test_views_show_the_variant_beside_all_and_keep_the_size_curve_whole(
    settings: Settings,
) -> None:
    scores = _item_scores(OUTLIER)
    write_table(settings, ensembles(scores, outlier_scale="bipolar3"), "ensembles", "s")
    con = _views(settings, ["stg_ensembles", "tbl_ensembles", "tbl_ensemble_size"])
    triples = con.sql(
        "select subset, strategy, n_possible, ensemble_abs_bias, bias_reduction_pct "
        "from tbl_ensembles"
    ).fetchall()
    assert triples == [
        # the 8 mixes of scales: mean |ensemble bias| 4/8, mean member |bias| 4.8/8
        ("all", "model_free", 8, 0.5, 16.7),
        ("all", "model_fixed", 2, 0.5, 16.7),
        ("all", "scale", 0, None, None),
        ("all", "prompt", 0, None, None),
        ("without bipolar3", "model_free", 1, 0.0, 100.0),
        ("without bipolar3", "model_fixed", 1, 0.0, 100.0),
        ("without bipolar3", "scale", 0, None, None),
        ("without bipolar3", "prompt", 0, None, None),
    ]
    sizes = con.sql("select distinct size from tbl_ensemble_size order by size").fetchall()
    assert sizes == [(1,), (2,), (3,), (4,), (5,)]
    assert con.sql("select count(*) from tbl_ensemble_size").fetchall() == [(10,)]


def test_a_second_readout_is_held_fixed_like_the_design_and_counts_follow() -> None:
    """Readouts = ["answer", "expected"]: each design read two ways is two designs. The
    strategies that hold prompt level and scale fixed hold the readout too (no ensemble of
    model_fixed, scale or prompt mixes readouts); model_free mixes them as it mixes scales.
    With one readout the table is what it was before readouts existed."""
    grid = _grid(judges=3, levels=2, scales=2)
    two = pl.concat(
        [
            grid.with_columns(readout=pl.lit("answer")),
            grid.with_columns(readout=pl.lit("expected"), score_1to7=pl.col("score_1to7") - 0.5),
        ]
    )
    t = ensembles(two)
    assert _cell(t, "model_fixed", 3)["n_possible"] == 4 * 2  # one triple per design × readout
    assert _cell(t, "model_free", 3)["n_possible"] == 8**3  # one of 8 readings per judge
    designs = matrix(two).designs
    # pairs: 8 design × readout cells × C(3, 2) judges; 12 judge × level (scale) × readout
    for strategy, n in (("model_fixed", 8 * 3), ("scale", 12), ("prompt", 12)):
        cell = draw(designs, strategy, 2, max_ensembles=10**6, seed="x")
        readouts = [{designs["readout"][i] for i in m} for m in cell.members.tolist()]
        assert cell.n_possible == n and all(len(r) == 1 for r in readouts)
    one = ensembles(grid.with_columns(readout=pl.lit("answer")))
    assert one.equals(ensembles(grid))
    holdout = ensemble_holdout(two)
    chosen = holdout.filter(strategy="model_fixed")["members"].item()
    assert chosen.count("/expected") in (0, 3)  # a model_fixed triple reads one way
