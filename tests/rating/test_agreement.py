"""Design pairs: differences, α and Wilcoxon p per pair agree with tasks.stats on the shared
items; pairs stay inside a study; the design-impact and judge-ranking views count right."""

import itertools
import time

import duckdb
import numpy as np
import polars as pl
import pytest
from scipy import stats as sps
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.weightstats import ttost_paired

from judgelab.settings import Settings
from schemas.design_pairs import DesignPairs
from schemas.rating_metrics import RatingMetrics
from schemas.validate import validate
from tasks import warehouse
from tasks.rating import agreement
from tasks.rating.agreement import design_pairs
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
        assert row["wilcoxon_p"] == pytest.approx(_scipy_p(x - y), rel=1e-9)
        assert row["sig"] == (row["wilcoxon_p"] < 0.05)
        assert row["meaningful"] == (abs(np.mean(x - y)) > 0.1)
    assert set(pairs["differs"]) == {"model", "prompt_level", "model+prompt_level"}


def _scipy_p(d: np.ndarray) -> float:
    """scipy's p with the method judgelab's rule names, decided here independently: exact for
    ≤ 50 differences with no zero and no tie, else asymptotic; continuity-corrected."""
    d = np.round(d, 9)
    nonzero = d[d != 0]
    untied = np.unique(np.abs(nonzero)).size == nonzero.size
    method = "exact" if d.size <= 50 and nonzero.size == d.size and untied else "asymptotic"
    return sps.wilcoxon(d, method=method, correction=True).pvalue


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


def _two_item_pair(study: str, a: float, b: float) -> list[tuple]:
    """Two designs of a study scoring two items a and b: every difference is exactly a − b."""
    return _design(study, "j1", "base", "likert7", [a, a]) + _design(
        study, "j2", "base", "likert7", [b, b]
    )


# (a, b, meaningful at the cut 0.2): on the cut up to float noise is not above it
MEANINGFUL_CASES = [
    (4.2, 4.0, False),  # 0.20000000000000018
    (4.0, 4.2, False),  # −0.20000000000000018
    (1.2, 1.0, False),  # 0.19999999999999996
    (3.0, 3.2, False),  # −0.20000000000000018
    (4.0 + 0.2 + 1e-6, 4.0, True),
    (4.0 - 0.2 - 1e-6, 4.0, True),
    (4.0 + 0.2 - 1e-6, 4.0, False),
]


def test_meaningful_is_decided_by_the_cut_not_by_float_noise() -> None:
    rows = [
        r for k, (a, b, _) in enumerate(MEANINGFUL_CASES) for r in _two_item_pair(f"c{k}", a, b)
    ]
    pairs = design_pairs(_frame(rows)).sort("study")
    assert pairs["mean_diff"].to_list() == [a - b for a, b, _ in MEANINGFUL_CASES]
    assert pairs["meaningful"].to_list() == [m for *_, m in MEANINGFUL_CASES]
    # the cut is the study's setting, not a constant
    assert design_pairs(_frame(rows), meaningful=0.3)["meaningful"].to_list() == [False] * 7


def test_sig_is_p_below_005_with_the_tolerance(monkeypatch: pytest.MonkeyPatch) -> None:
    """p exactly 0.05 and 0.05 minus float noise are on the cut: not significant."""
    p = np.array([0.05, 0.049999999999999996, 0.05 - 1e-6, 0.05 + 1e-6])
    got = []
    for k in range(4):  # one pair per run, given its p
        monkeypatch.setattr(agreement, "_wilcoxon_p", lambda d, k=k: p[k : k + 1])
        got.append(design_pairs(_frame(_two_item_pair("s", 4.0, 3.0))).row(0, named=True))
    assert [g["wilcoxon_p"] for g in got] == list(p)
    assert [g["sig"] for g in got] == [False, False, True, False]


def test_adjusted_p_are_over_all_pairs_of_a_study() -> None:
    rng = np.random.default_rng(4)
    rows = []
    for study, shifts in (("s1", (0, 0.1, 0.3, 0.6)), ("s2", (0, 0.05, 0.4))):
        truth = rng.uniform(2, 6, 30)
        for k, shift in enumerate(shifts):
            scores = np.clip(np.round(truth + shift + rng.normal(0, 0.4, 30), 2), 1, 7)
            rows += _design(study, f"j{k}", "base", "likert7", scores)
    pairs = design_pairs(_frame(rows))
    for study, n_pairs in (("s1", 6), ("s2", 3)):
        grp = pairs.filter(pl.col("study") == study)
        assert grp.height == n_pairs
        for method, column in (("holm", "p_holm"), ("fdr_bh", "p_bh")):
            ref = multipletests(grp["wilcoxon_p"].to_numpy(), method=method)[1]
            assert grp[column].to_numpy() == pytest.approx(ref, rel=1e-12)
    assert (pairs["p_holm"] > pairs["wilcoxon_p"]).any()


def test_tost_per_pair_matches_statsmodels_on_shared_items() -> None:
    rng = np.random.default_rng(8)
    truth = rng.uniform(2, 6, 40)
    rows = []
    for judge, shift in (("ja", 0.0), ("jb", 0.02), ("jc", 0.5)):
        scores = np.clip(np.round(truth + shift + rng.normal(0, 0.3, 40), 2), 1, 7)
        rows += _design("s", judge, "base", "likert7", scores)[: 40 if judge != "jc" else 30]
    frame = _frame(rows)
    pairs = design_pairs(frame, margin=0.25)
    wide = dict(frame.group_by("judge").agg("score_1to7").iter_rows())
    for row in pairs.iter_rows(named=True):
        n = row["n_items"]
        a, b = np.array(wide[row["judge_a"]][:n]), np.array(wide[row["judge_b"]][:n])
        assert row["tost_p"] == pytest.approx(ttost_paired(a, b, -0.25, 0.25)[0], rel=1e-9)
        assert row["diff_lo"] < row["mean_diff"] < row["diff_hi"]
    verdicts = {(r["judge_a"], r["judge_b"]): r["equivalent"] for r in pairs.iter_rows(named=True)}
    assert verdicts == {("ja", "jb"): "yes", ("ja", "jc"): "no", ("jb", "jc"): "no"}


def test_a_study_of_37_designs_on_12_items_runs_quickly_and_matches_scipy() -> None:
    """666 pairs of small, tied samples: the case where scipy's "auto" ran a permutation test
    per pair. The rule's vectorised p equals scipy called pair by pair with the same method."""
    rng = np.random.default_rng(12)
    truth = rng.uniform(1.5, 6.5, 12)
    rows = []
    for k in range(37):
        scores = np.clip(np.round(truth + rng.normal(0, 0.7, 12)), 1, 7)  # integers: ties
        rows += _design("s", f"j{k:02d}", "base", "likert7", scores)
    frame = _frame(rows)
    start = time.perf_counter()
    pairs = design_pairs(frame)
    print(f"design_pairs, 12 items x 37 designs (666 pairs): {time.perf_counter() - start:.3f} s")
    assert pairs.height == 37 * 36 // 2
    wide = dict(frame.group_by("judge").agg("score_1to7").iter_rows())
    tested = pairs.filter(pl.col("wilcoxon_p").is_not_null())
    assert tested.height > 600
    for row in tested.iter_rows(named=True):
        d = np.array(wide[row["judge_a"]]) - np.array(wide[row["judge_b"]])
        assert row["wilcoxon_p"] == pytest.approx(_scipy_p(d), rel=1e-9)


def _views(settings: Settings, *names: str) -> duckdb.DuckDBPyConnection:
    """The named views, after stg_rating_metrics (the impact views count the designs without a
    scored item there; an empty part when the test wrote none)."""
    warehouse.ensure_tables(settings)
    con = duckdb.connect()
    for name in ("staging/stg_rating_metrics", *names):
        con.execute(warehouse.render_view(warehouse.SQL_DIR / f"{name}.sql", settings))
    return con


def test_design_impact_single_counts_one_choice_pairs(settings: Settings) -> None:
    # j1 moves +0.5 on bipolar3; j2 sits 0.125 above j1's likert7 on both scales; plus a
    # baseline, whose pairs differ in several choices and so stay out of this table
    human = np.arange(2.0, 6.0, 0.125)  # 32 items: constant differences get a TOST verdict
    rows = (
        _design("s", "j1", "base", "likert7", human)
        + _design("s", "j1", "base", "bipolar3", human + 0.5)
        + _design("s", "j2", "base", "likert7", human + 0.125)
        + _design("s", "j2", "base", "bipolar3", human + 0.125)
        + _design("s", "vader", "none", "native", human, kind="baseline")
    )
    warehouse.write_table(settings, design_pairs(_frame(rows)), "design_pairs", "s")
    con = _views(settings, "staging/stg_design_pairs", "reports/tbl_design_impact_single")
    got = con.sql("select * from tbl_design_impact_single").pl()
    assert got.columns[3:] == [
        "n_pairs",
        "n_compared",
        "sig_pct",
        "sig_holm_pct",
        "sig_bh_pct",
        "meaningful_pct",
        "equivalent_pct",
        "not_equivalent_pct",
        "inconclusive_pct",
        "equivalent",
        "mean_abs_diff",
        "max_abs_diff",
        "n_unscored_designs",
    ]
    split = (50.0, 50.0, 0.0, "no")  # % yes, no, inconclusive; the choice's verdict
    # every design scored items: none left out of the pairs (last column)
    assert got.rows() == [
        # model: |0.5 − 0.125| and |0 − 0.125|, both constant shifts → both significant, also
        # after Holm / BH over the study's 10 pairs; constant differences: 0.375 is beyond the
        # margin 0.2, 0.125 inside it → one "no" makes the choice "not equivalent"
        ("s", "judge-judge", "model", 2, 2, 100.0, 100.0, 100.0, 50.0, *split, 0.25, 0.375, 0),
        # scale: j1 0.5 (significant, beyond the margin), j2 0 (no test: not significant;
        # every difference 0: equivalent)
        ("s", "judge-judge", "scale", 2, 2, 50.0, 50.0, 50.0, 50.0, *split, 0.25, 0.5, 0),
    ]


def _pairs_frame(rows: list[dict]) -> pl.DataFrame:
    """A design_pairs frame with the columns the impact views read; each row one pair."""
    base = {"study": "s", "kind_a": "judge", "kind_b": "judge", "n_items": 20, "mad": 0.1}
    base |= {"alpha": 0.9, "mean_diff": 0.1, "abs_diff": 0.1, "wilcoxon_p": 0.5, "p_holm": 0.9}
    base |= {"p_bh": 0.9, "sig": False, "meaningful": False, "diff_lo": 0.0, "diff_hi": 0.2}
    base |= {"tost_p": 0.5, "equivalent": "yes", "differs": "scale", "n_differ": 1}
    out = []
    for k, r in enumerate(rows):
        sides = {f"{c}_{t}": f"{c}{k}{t}" for c in ("judge", "model", "prompt_level") for t in "ab"}
        same = {"readout_a": "answer", "readout_b": "answer"}
        out.append({**base, **sides, "scale_a": "x", "scale_b": "y", **same, **r})
    return validate(pl.DataFrame(out).select(list(DesignPairs.to_schema().columns)), DesignPairs)


def test_impact_shares_cut_adjusted_p_on_the_cut_and_verdicts(settings: Settings) -> None:
    """Adjusted p exactly on, just below and a float-noise hair below 0.05; the verdict from
    the pairs' TOST results; the share denominators are all pairs of the row."""
    noise = 0.05 - 1e-17 * 5  # 0.049999999999999996: on the cut
    rows = [
        {"differs": "scale", "p_holm": 0.05, "p_bh": 0.049},
        {"differs": "scale", "p_holm": noise, "p_bh": noise, "equivalent": "inconclusive"},
        {"differs": "scale", "p_holm": 0.04, "p_bh": 0.05 + 1e-6},
        {"differs": "scale", "p_holm": None, "p_bh": None, "abs_diff": None, "mean_diff": None},
        {"differs": "model", "n_differ": 1},
        {"differs": "model", "n_differ": 1, "equivalent": "no"},
        {"differs": "model", "n_differ": 1, "equivalent": "inconclusive"},
        {"differs": "prompt_level", "equivalent": "inconclusive"},
        {"differs": "model+scale", "n_differ": 2, "p_holm": 0.001, "equivalent": "no"},
    ]
    warehouse.write_table(settings, _pairs_frame(rows), "design_pairs", "s")
    con = _views(
        settings,
        "staging/stg_design_pairs",
        "reports/tbl_design_impact_single",
        "reports/tbl_design_impact_all_pairs",
    )
    single = {
        r["choice"]: r for r in con.sql("select * from tbl_design_impact_single").pl().to_dicts()
    }
    scale = single["scale"]
    assert (scale["n_pairs"], scale["n_compared"]) == (4, 3)
    assert (scale["sig_holm_pct"], scale["sig_bh_pct"]) == (25.0, 25.0)
    assert (scale["equivalent_pct"], scale["inconclusive_pct"]) == (75.0, 25.0)
    assert scale["equivalent"] == "inconclusive"
    assert single["model"]["equivalent"] == "no"
    assert single["model"]["not_equivalent_pct"] == pytest.approx(33.3)
    assert single["prompt_level"]["equivalent"] == "inconclusive"
    every = {
        r["n_differ"]: r
        for r in con.sql("select * from tbl_design_impact_all_pairs").pl().to_dicts()
    }
    assert list(every) == ["1", "2", "all"]
    assert (every["all"]["n_pairs"], every["all"]["n_compared"]) == (9, 8)
    assert every["all"]["sig_holm_pct"] == pytest.approx(100 * 2 / 9, abs=0.05)
    assert every["2"]["sig_holm_pct"] == 100.0


def test_verdict_equivalent_when_every_pair_is(settings: Settings) -> None:
    rows = [{"differs": "scale"}, {"differs": "scale"}]
    warehouse.write_table(settings, _pairs_frame(rows), "design_pairs", "s")
    con = _views(settings, "staging/stg_design_pairs", "reports/tbl_design_impact_single")
    got = con.sql("select equivalent, equivalent_pct from tbl_design_impact_single").pl().rows()
    assert got == [("yes", 100.0)]


@pytest.mark.parametrize("shift", [0.15, 0.10])
def test_a_constant_difference_on_3_items_is_inconclusive_in_pairs_and_table_11(
    shift: float, settings: Settings
) -> None:
    """Two models `shift` apart on each of 3 items: no spread, so no verdict before
    MIN_N_NO_SPREAD items, whatever float noise Σd² − n·mean² leaves (1e-17 for 0.15 on
    items scored 1, 1 and 4 made it "yes")."""
    scores = np.array([1.0, 1.0, 4.0])
    rows = _design("s", "j1", "base", "likert7", scores) + _design(
        "s", "j2", "base", "likert7", scores + shift
    )
    (pair,) = design_pairs(_frame(rows)).iter_rows(named=True)
    assert (pair["n_items"], pair["equivalent"]) == (3, "inconclusive")
    assert pair["diff_lo"] == pair["diff_hi"]
    warehouse.write_table(settings, design_pairs(_frame(rows)), "design_pairs", "s")
    warehouse.publish_views(settings)
    sql = "select equivalent_pct, equivalent from tbl_design_impact_single"
    got = warehouse.query(settings, sql)
    assert got.rows() == [(0.0, "inconclusive")]


def test_all_pairs_pools_every_pair_and_splits_by_n_differ(settings: Settings) -> None:
    """Table 12: the pooled row averages |difference| over every pair of the study, whatever
    differs; n is the number of pairs compared."""
    rows = (
        _design("s", "j1", "base", "likert7", HUMAN)
        + _design("s", "j1", "base", "bipolar3", HUMAN + 0.5)
        + _design("s", "j2", "long_icl", "likert7", HUMAN + 0.25)
        + _design("s", "j2", "base", "bipolar3", HUMAN - 0.25)
    )
    pairs = design_pairs(_frame(rows))
    warehouse.write_table(settings, pairs, "design_pairs", "s")
    con = _views(settings, "staging/stg_design_pairs", "reports/tbl_design_impact_all_pairs")
    got = con.sql("select * from tbl_design_impact_all_pairs").pl()
    assert got["n_differ"].to_list() == ["1", "2", "3", "all"]
    pooled = got.row(3, named=True)
    assert pooled["n_pairs"] == pooled["n_compared"] == pairs.height == 6
    assert pooled["mean_abs_diff"] == pytest.approx(round(pairs["abs_diff"].mean(), 3))
    assert pooled["max_abs_diff"] == pairs["abs_diff"].max() == 0.75
    by_n = got.filter(pl.col("n_differ") != "all")
    assert by_n["n_pairs"].sum() == 6
    assert pooled["sig_pct"] == pytest.approx(round(100 * pairs["sig"].sum() / 6, 1))
    assert pooled["equivalent_pct"] == pytest.approx(
        round(100 * (pairs["equivalent"] == "yes").sum() / 6, 1)
    )


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
