"""Ensembles: cancelling biases, counting qualifying combinations, seeded samples, holdout."""

import itertools
from pathlib import Path

import duckdb
import numpy as np
import polars as pl
import pytest

from judgelab.settings import PROJECT_ROOT, Settings
from tasks.ensembles import RULES, draw, ensemble_holdout, ensembles, halves, matrix
from tasks.warehouse import render_view, write_table

HUMAN = 4.0


def _item_scores(devs: dict[tuple[str, str, str], list[float | None]]) -> pl.DataFrame:
    """(judge, prompt_level, scale) → score − human per item (None = not scored); human = 4."""
    rows = [
        ("s", "judge", judge, f"m-{judge}", level, scale, f"i{i:02d}", 1, HUMAN + d, None, HUMAN)
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


def _cell(table: pl.DataFrame, strategy: str, size: int) -> dict:
    return table.filter(strategy=strategy, size=size).row(0, named=True)


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


def test_a_baseline_joins_only_where_its_columns_fit() -> None:
    grid = _grid(judges=3, levels=2, scales=2)
    vader = grid.filter(judge="j0", prompt_level="p0", scale="s0").with_columns(
        kind=pl.lit("baseline"),
        judge=pl.lit("vader"),
        prompt_level=pl.lit("none"),
        scale=pl.lit("compound"),
    )
    t = ensembles(pl.concat([grid, vader]))
    assert _cell(t, "model_free", 3)["n_possible"] == 4**3 + 3 * 4**2  # with or without it
    assert _cell(t, "model_fixed", 3)["n_possible"] == 4  # its prompt level and scale are its own


def test_impossible_cells_are_rows_with_zero_possible_and_nulls() -> None:
    t = ensembles(_grid(judges=3, levels=2, scales=2))
    assert t.height == 4 + 4 + 1 + 1  # every strategy × size appears
    for strategy, size in [("scale", 3), ("prompt", 3), ("model_free", 4), ("model_fixed", 5)]:
        row = _cell(t, strategy, size)
        assert (row["n_possible"], row["n_evaluated"]) == (0, 0)
        assert row["ensemble_abs_bias"] is None and row["bias_reduction_pct"] is None


@pytest.mark.parametrize("strategy", list(RULES))
@pytest.mark.parametrize("k", [2, 3])
def test_enumeration_matches_brute_force(strategy: str, k: int) -> None:
    """Drawing by rank yields exactly the qualifying combinations, each once."""
    designs = matrix(_grid(judges=4, levels=3, scales=3)).designs
    shared, differ = RULES[strategy]
    rows = designs.to_dicts()
    expected = {
        c
        for c in itertools.combinations(range(len(rows)), k)
        if all(len({rows[i][col] for i in c}) == 1 for col in shared)
        and len({rows[i][differ] for i in c}) == k
    }
    cell = draw(designs, strategy, k, max_ensembles=10**6, seed="x")
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


def _views(settings: Settings, names: list[str]) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    for name in names:
        layer = "staging" if name.startswith("stg_") else "reports"
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
    free = triples.row(0, named=True)
    # members |1|, |−1|, |1/3| average 0.778; the triple's bias is 1/9 → 85.7% less
    assert (free["member_abs_bias"], free["ensemble_abs_bias"]) == (0.778, 0.111)
    assert free["bias_reduction_pct"] == 85.7 and free["beats_best_member_pct"] == 100.0
    sizes = con.sql("select strategy, size, n_possible from tbl_ensemble_size").fetchall()
    assert sizes[:4] == [
        ("model_free", 2, 3),
        ("model_free", 3, 1),
        ("model_free", 4, 0),
        ("model_free", 5, 0),
    ]
    assert len(sizes) == 8
    holdout = con.sql("select members, abs_bias_a from tbl_ensemble_holdout").fetchall()
    assert holdout[0] == ("a/base/likert7 + b/base/likert7 + c/base/likert7", 0.111)
