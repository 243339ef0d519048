"""Design pairs: differences, α and Wilcoxon p per pair agree with tasks.stats on the shared
items; pairs stay inside a study; the design-impact and judge-ranking views count right."""

import itertools

import duckdb
import numpy as np
import polars as pl
import pytest

from judgelab.settings import Settings
from schemas.rating_metrics import RatingMetrics
from tasks import warehouse
from tasks.agreement import design_pairs
from tasks.stats import kripp_alpha, wilcoxon

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


def _design(study: str, judge: str, level: str, scale: str, scores, kind: str = "judge"):
    return [(study, kind, judge, level, scale, f"i{k:03d}", y) for k, y in enumerate(scores)]


HUMAN = np.arange(2.0, 6.0, 0.25)  # 16 items, exact in binary so shifts stay exact


def test_scale_only_shift() -> None:
    frame = _frame(
        _design("s", "j1", "base", "bipolar3", HUMAN + 0.5)
        + _design("s", "j1", "base", "likert7", HUMAN)
    )
    (row,) = design_pairs(frame).iter_rows(named=True)
    assert (row["scale_a"], row["scale_b"]) == ("bipolar3", "likert7")  # a sorts first
    assert row["n_items"] == 16
    assert (row["mean_diff"], row["abs_diff"], row["mad"]) == (0.5, 0.5, 0.5)
    assert (row["differs"], row["n_differ"]) == ("scale", 1)
    assert row["meaningful"] is True and row["sig"] is True
    assert row["wilcoxon_p"] == pytest.approx(wilcoxon(HUMAN + 0.5, HUMAN)[1])
    assert row["alpha"] == pytest.approx(kripp_alpha(HUMAN + 0.5, HUMAN))


def test_alpha_p_and_differences_match_stats_on_shared_items() -> None:
    """Large pairs (batched Wilcoxon, with unshared items) and small ones (one by one)."""
    rng = np.random.default_rng(11)
    rows = []
    for study, n in (("big", 90), ("small", 12)):
        truth = rng.uniform(1.5, 6.5, n)
        for judge, level in itertools.product(("ja", "jb"), ("base", "long_icl")):
            scores = np.clip(np.round(truth + rng.normal(0, 0.6, n), 1), 1, 7)
            design = _design(study, judge, level, "likert7", scores)
            kept = rng.random(n) > 0.1  # parse failures: each design misses some items
            rows += [r for r, k in zip(design, kept, strict=True) if k]
    frame = _frame(rows)
    pairs = design_pairs(frame, meaningful=0.1)
    wide = {
        (r["study"], r["judge"], r["prompt_level"]): r
        for r in frame.group_by("study", "judge", "prompt_level")
        .agg("item_id", "score_1to7")
        .iter_rows(named=True)
    }
    assert pairs.height == 12
    for row in pairs.iter_rows(named=True):
        a = wide[(row["study"], row["judge_a"], row["prompt_level_a"])]
        b = wide[(row["study"], row["judge_b"], row["prompt_level_b"])]
        sa = dict(zip(a["item_id"], a["score_1to7"], strict=True))
        sb = dict(zip(b["item_id"], b["score_1to7"], strict=True))
        shared = sorted(set(sa) & set(sb))
        x, y = np.array([sa[i] for i in shared]), np.array([sb[i] for i in shared])
        assert row["n_items"] == len(shared)
        assert row["mean_diff"] == pytest.approx(np.mean(x - y), abs=1e-12)
        assert row["mad"] == pytest.approx(np.mean(np.abs(x - y)), abs=1e-12)
        assert row["alpha"] == pytest.approx(kripp_alpha(x, y), abs=1e-12)
        assert row["wilcoxon_p"] == pytest.approx(wilcoxon(x, y)[1], rel=1e-9)
        assert row["sig"] == (row["wilcoxon_p"] < 0.05)
        assert row["meaningful"] == (abs(np.mean(x - y)) > 0.1)
    assert set(pairs["differs"]) == {"model", "prompt_level", "model+prompt_level"}


def test_pairs_stay_inside_a_study_and_count_k_choose_2() -> None:
    rows = []
    for study, judges in (("s1", ("x1", "x2")), ("s2", ("y1", "y2", "y3"))):
        for judge, scale in itertools.product(judges, ("likert7", "unit")):
            rows += _design(study, judge, "base", scale, HUMAN)
    rows += _design("s1", "vader", "none", "native", HUMAN, kind="baseline")
    pairs = design_pairs(_frame(rows))
    counts = dict(pairs.group_by("study").len().iter_rows())
    assert counts == {"s1": 5 * 4 // 2, "s2": 6 * 5 // 2}
    for side in ("a", "b"):
        first = pairs.select(pl.col("study"), pl.col(f"judge_{side}").str.slice(0, 1))
        assert first.filter(
            (pl.col("study") == "s2") != (pl.col(f"judge_{side}") == "y")
        ).is_empty()
    # the baseline against a judge differs in model, prompt level and scale
    vader = pairs.filter(pl.col("judge_a") == "vader")
    assert vader.height == 4 and set(vader["differs"]) == {"model+prompt_level+scale"}
    assert set(vader["n_differ"]) == {3} and set(vader["kind_a"]) == {"baseline"}
    # identical scores: no difference, α 1, no test possible
    same = pairs.filter((pl.col("judge_a") == "x1") & (pl.col("judge_b") == "x1")).row(
        0, named=True
    )
    assert (same["mean_diff"], same["mad"], same["alpha"]) == (0.0, 0.0, 1.0)
    assert same["wilcoxon_p"] is None and same["sig"] is None and same["meaningful"] is False


def test_designs_without_shared_items_keep_a_null_row() -> None:
    frame = _frame(
        _design("s", "j1", "base", "likert7", HUMAN[:5])
        + [("s", "judge", "j2", "base", "likert7", f"other{k}", 4.0) for k in range(5)]
    )
    (row,) = design_pairs(frame).iter_rows(named=True)
    assert row["n_items"] == 0
    assert all(row[c] is None for c in ("mean_diff", "abs_diff", "mad", "alpha", "wilcoxon_p"))
    assert (row["sig"], row["meaningful"], row["differs"]) == (None, None, "model")
    assert design_pairs(frame.clear()).is_empty()


def _views(settings: Settings, *names: str) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    for name in names:
        con.execute(warehouse.render_view(warehouse.SQL_DIR / f"{name}.sql", settings))
    return con


def test_design_impact_single_counts_one_choice_pairs(settings: Settings) -> None:
    # j1 moves +0.5 on bipolar3; j2 sits 0.125 above j1's likert7 on both scales; plus a
    # baseline, whose pairs differ in several choices and so stay out of this table
    rows = (
        _design("s", "j1", "base", "likert7", HUMAN)
        + _design("s", "j1", "base", "bipolar3", HUMAN + 0.5)
        + _design("s", "j2", "base", "likert7", HUMAN + 0.125)
        + _design("s", "j2", "base", "bipolar3", HUMAN + 0.125)
        + _design("s", "vader", "none", "native", HUMAN, kind="baseline")
    )
    warehouse.write_table(settings, design_pairs(_frame(rows)), "design_pairs", "s")
    con = _views(settings, "staging/stg_design_pairs", "reports/tbl_design_impact_single")
    got = con.sql("select * from tbl_design_impact_single").pl()
    assert got.rows() == [
        # model: |0.5 − 0.125| and |0 − 0.125|, both constant shifts → both significant
        ("s", "judge-judge", "model", 2, 100.0, 50.0, 0.25, 0.375),
        # scale: j1 0.5 (significant), j2 0 (no test: counts as not significant)
        ("s", "judge-judge", "scale", 2, 50.0, 50.0, 0.25, 0.5),
    ]
    assert got.columns[3:] == [
        "n_pairs",
        "sig_pct",
        "meaningful_pct",
        "mean_abs_diff",
        "max_abs_diff",
    ]


def _metrics(rows: list[dict]) -> pl.DataFrame:
    schema = {n: c.dtype.type for n, c in RatingMetrics.to_schema().columns.items()}
    base = {"study": "s", "kind": "judge", "n_planned": 10, "n_items": 10}
    base |= {"parse_failure_rate": 0.0, "error_rate": 0.0}
    full = [{**dict.fromkeys(schema), **base, "model": f"m/{r['judge']}", **r} for r in rows]
    return pl.DataFrame(full, schema=schema)


def test_judge_ranking_ranks_alpha_within_each_cell(settings: Settings) -> None:
    cell = {"prompt_level": "base", "scale": "likert7"}
    metrics = _metrics(
        [
            {**cell, "judge": "j1", "kripp_alpha": 0.8, "bias": 0.12345, "mae": 0.5},
            {**cell, "judge": "j2", "kripp_alpha": 0.9, "bias": -0.2, "mae": 0.4},
            {**cell, "judge": "j3", "kripp_alpha": None, "bias": None, "mae": None},
            {**cell, "judge": "j4", "kripp_alpha": 0.9, "bias": 0.1, "mae": 0.45},
            {"prompt_level": "long_icl", "scale": "likert7", "judge": "j1", "kripp_alpha": 0.1},
            {
                "kind": "baseline",
                "prompt_level": "none",
                "scale": "native",
                "judge": "vader",
                "kripp_alpha": 0.95,
            },
        ]
    )
    warehouse.write_table(settings, metrics, "rating_metrics", "s")
    con = _views(
        settings,
        "staging/stg_rating_metrics",
        "marts/fct_rating_metrics",
        "reports/tbl_judge_ranking",
    )
    got = con.sql(
        'select prompt_level, scale, judge, "rank", n_judges, kripp_alpha, bias, mae '
        "from tbl_judge_ranking"
    ).pl()
    assert got.rows() == [
        ("base", "likert7", "j2", 1, 4, 0.9, -0.2, 0.4),
        ("base", "likert7", "j4", 1, 4, 0.9, 0.1, 0.45),  # a tie shares the rank
        ("base", "likert7", "j1", 3, 4, 0.8, 0.123, 0.5),
        ("base", "likert7", "j3", None, 4, None, None, None),  # no α, no rank
        ("long_icl", "likert7", "j1", 1, 1, 0.1, None, None),
        ("none", "native", "vader", 1, 1, 0.95, None, None),  # baselines rank among themselves
    ]
