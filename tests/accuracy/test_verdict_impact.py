"""Impact tests: McNemar discordant counts and p against pingouin, TOST against statsmodels,
Holm / Benjamini–Hochberg per study against statsmodels, chi-square against scipy, Cochran's Q
against statsmodels and by hand; single-choice pairs only; levels averaged over the other
choices (Table 17) by hand; the report views."""

import itertools

import duckdb
import numpy as np
import pingouin as pg
import polars as pl
import pytest
from scipy import stats as sps
from statsmodels.stats.contingency_tables import cochrans_q
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.weightstats import DescrStatsW, ttost_paired

from judgelab.settings import Settings
from schemas.accuracy_metrics import AccuracyMetrics
from schemas.validate import validate
from schemas.verdict_levels import VerdictLevels
from schemas.verdict_pairs import VerdictPairs
from schemas.verdicts import Verdicts
from tasks import warehouse
from tasks.accuracy.consensus import consensus
from tasks.accuracy.metrics import accuracy_metrics
from tasks.accuracy.verdict_impact import (
    correctness,
    mcnemar,
    verdict_levels,
    verdict_pairs,
    verdict_tests,
)

MARGIN = 0.05  # [study.analysis] margin("accuracy") by default: 5 percentage points

SCHEMA = {n: c.dtype.type for n, c in Verdicts.to_schema().columns.items()}


def _calls(
    designs: dict[tuple, list], reference: list[bool | None], study: str = "s"
) -> pl.DataFrame:
    """{(judge, level, effort): one entry per item, 1/0 or a status} → verdicts, one repeat."""
    rows = []
    for (judge, level, effort), entries in designs.items():
        for k, v in enumerate(entries):
            status, verdict = ("ok", int(v)) if not isinstance(v, str) else (v, None)
            design = (study, judge, f"m/{judge}", level, effort)
            rows.append((*design, f"i{k:02d}", 0, status, verdict, reference[k]))
    return validate(pl.DataFrame(rows, schema=SCHEMA, orient="row"), Verdicts)


def _pairs(frame: pl.DataFrame, margin: float = MARGIN) -> pl.DataFrame:
    return verdict_pairs(frame, consensus(frame), margin=margin)


def _random_study() -> pl.DataFrame:
    """2 judges × 3 prompt levels × 2 efforts, plus a judge without effort control; 40 items,
    about 5% of calls failed."""
    rng = np.random.default_rng(7)
    n = 40
    reference = list(rng.random(n) < 0.5)
    designs = {}
    keys = itertools.product(("ja", "jb"), ("base", "short_icl", "long_icl"), ("low", "high"))
    for judge, level, effort in [*keys, ("jn", "base", "n/a")]:
        p_true = rng.uniform(0.55, 0.9)  # how often the design gets an item right
        right = rng.random(n) < p_true
        said = [int(r == ref) for r, ref in zip(right, reference, strict=True)]
        designs[(judge, level, effort)] = ["error" if rng.random() < 0.05 else v for v in said]
    return _calls(designs, reference)


RANDOM = _random_study()


def _wide(rows: pl.DataFrame) -> dict[tuple, dict[str, int]]:
    return {
        (r["judge"], r["prompt_level"], r["reasoning_effort"]): dict(
            zip(r["item_id"], r["correct"], strict=True)
        )
        for r in rows.group_by("judge", "prompt_level", "reasoning_effort")
        .agg("item_id", "correct")
        .iter_rows(named=True)
    }


def test_pairs_match_pingouin_mcnemar() -> None:
    pairs = _pairs(RANDOM)
    # only-model: ja–jb at 3 levels × 2 efforts, and jn ("n/a": no effort level) with each of
    # ja's and jb's 2 efforts at base; only-level: 2 judges × 2 efforts × 3; only-effort: 2 × 3
    assert pairs.height == (6 + 4) + 12 + 6
    assert dict(pairs.group_by("choice").len().iter_rows()) == {
        "model": 10,
        "prompt_level": 12,
        "reasoning_effort": 6,
    }
    with_jn = pairs.filter(pl.col("judge_b") == "jn")
    assert with_jn.select("judge_a", "reasoning_effort_a").sort(
        "judge_a", "reasoning_effort_a"
    ).rows() == [
        ("ja", "high"),
        ("ja", "low"),
        ("jb", "high"),
        ("jb", "low"),
    ]
    assert set(with_jn["choice"]) == {"model"} and set(with_jn["prompt_level_a"]) == {"base"}
    wide = _wide(correctness(RANDOM, consensus(RANDOM)))
    for row in pairs.iter_rows(named=True):
        a = wide[(row["judge_a"], row["prompt_level_a"], row["reasoning_effort_a"])]
        b = wide[(row["judge_b"], row["prompt_level_b"], row["reasoning_effort_b"])]
        shared = sorted(set(a) & set(b))
        frame = pl.DataFrame({"a": [a[i] for i in shared], "b": [b[i] for i in shared]})
        observed, st = pg.chi2_mcnemar(frame.to_pandas(), "a", "b")
        assert row["n_items"] == len(shared)
        assert (row["b"], row["c"]) == (observed.at[1, 0], observed.at[0, 1])
        assert row["chi2"] == pytest.approx(st["chi2"].iloc[0])
        assert row["p_approx"] == pytest.approx(st["p_approx"].iloc[0])
        assert row["p_exact"] == pytest.approx(st["p_exact"].iloc[0])
        assert row["acc_diff"] == pytest.approx((row["b"] - row["c"]) / len(shared))
        assert row["accuracy_a"] == pytest.approx(np.mean([a[i] for i in shared]))
        exact = row["b"] + row["c"] < 25
        assert row["method"] == ("exact" if exact else "chi2_cc")
        assert row["p"] == (row["p_exact"] if exact else row["p_approx"])


def test_mcnemar_small_counts_and_odds_ratio() -> None:
    t = mcnemar(np.array([20, 3, 0]), np.array([5, 0, 0]))
    assert t["method"].tolist() == ["chi2_cc", "exact", "exact"]
    assert t["chi2"][0] == pytest.approx((15 - 1) ** 2 / 25)
    assert t["p"][1] == pytest.approx(2 * 0.5**3)  # both tails of 3 out of 3
    assert np.isnan(t["chi2"][2]) and t["p"][2] == 1.0  # no discordant pair
    # b = 3, c = 0 → (3 + ½) / (0 + ½)
    frame = _calls(
        {("ja", "base", "low"): [1, 1, 1, 1], ("jb", "base", "low"): [1, 0, 0, 0]}, [True] * 4
    )
    (row,) = _pairs(frame).iter_rows(named=True)
    assert (row["b"], row["c"], row["odds_ratio"], row["or_corrected"]) == (3, 0, 7.0, True)
    assert (row["accuracy_a"], row["accuracy_b"], row["acc_diff"]) == (1.0, 0.25, 0.75)


def test_tost_matches_statsmodels_ttost_paired() -> None:
    """Per pair, TOST on the per-item correctness differences a − b: p and the 90% CI as
    statsmodels computes them from the items, the verdict from p and the CI."""
    pairs = _pairs(RANDOM)
    wide = _wide(correctness(RANDOM, consensus(RANDOM)))
    compared = 0
    for row in pairs.iter_rows(named=True):
        a = wide[(row["judge_a"], row["prompt_level_a"], row["reasoning_effort_a"])]
        b = wide[(row["judge_b"], row["prompt_level_b"], row["reasoning_effort_b"])]
        shared = sorted(set(a) & set(b))
        x1 = np.array([a[i] for i in shared], dtype=float)
        x2 = np.array([b[i] for i in shared], dtype=float)
        assert row["margin"] == MARGIN
        if np.var(x1 - x2) == 0:  # statsmodels divides by 0 there
            continue
        p, _, _ = ttost_paired(x1, x2, -MARGIN, MARGIN)
        lo, hi = DescrStatsW(x1 - x2).tconfint_mean(alpha=0.10)
        assert row["tost_p"] == pytest.approx(p)
        assert (row["diff_lo"], row["diff_hi"]) == (pytest.approx(lo), pytest.approx(hi))
        beyond = lo > MARGIN or hi < -MARGIN
        assert row["equivalent"] == ("yes" if p < 0.05 else "no" if beyond else "inconclusive")
        compared += 1
    assert compared > 20
    # 40 items with many discordant ones cannot show ±5 points; wider margins can
    assert "yes" not in set(pairs["equivalent"])
    wide_margin = _pairs(RANDOM, margin=0.5)
    assert (wide_margin["equivalent"] == "yes").sum() > 0
    assert (wide_margin["margin"] == 0.5).all()


def test_tost_verdicts_by_hand() -> None:
    """All references TRUE: a design is right on its first k items. 400 items, a right on
    all, b wrong on 4 (b = 4, c = 0): mean 0.01, SD √((4 − 400·0.0001)/399), 90% CI inside
    ±0.05 → equivalent. c wrong on 200 → CI far beyond. d shares 1 item with a: too few."""
    n = 400
    frame = _calls(
        {
            ("ja", "base", "low"): [1] * n,
            ("jb", "base", "low"): [1] * (n - 4) + [0] * 4,
            ("jc", "base", "low"): [1] * (n // 2) + [0] * (n // 2),
            ("jd", "base", "low"): [1] + ["error"] * (n - 1),
        },
        [True] * n,
    )
    got = {(r["judge_a"], r["judge_b"]): r for r in _pairs(frame).iter_rows(named=True)}
    ab = got[("ja", "jb")]
    half = sps.t.ppf(0.95, n - 1) * np.sqrt((4 - n * 0.01**2) / (n - 1) / n)
    assert (ab["diff_lo"], ab["diff_hi"]) == (
        pytest.approx(0.01 - half),
        pytest.approx(0.01 + half),
    )
    assert ab["equivalent"] == "yes" and ab["tost_p"] < 0.05
    assert got[("ja", "jc")]["equivalent"] == "no"
    assert got[("ja", "jc")]["diff_lo"] > MARGIN
    ad = got[("ja", "jd")]
    assert (ad["n_items"], ad["equivalent"], ad["tost_p"], ad["diff_lo"]) == (
        1,
        "inconclusive",
        None,
        None,
    )
    # the margin decides: at ±0.5 the a–c difference of exactly 0.5 is no longer shown beyond
    assert (
        _pairs(frame, margin=0.6).filter(pl.col("judge_b") == "jc")["equivalent"].to_list()[0]
        == "yes"
    )


def _right_on_first(k: dict[tuple, int], n: int = 40) -> pl.DataFrame:
    """All references TRUE: each design says TRUE (is right) on its first k items."""
    return _calls({d: [1] * right + [0] * (n - right) for d, right in k.items()}, [True] * n)


# Table 17 by hand: ja with two efforts, jn without effort control; accuracy of 40 items
T17 = _right_on_first(
    {
        ("ja", "base", "low"): 36,  # 0.90
        ("ja", "base", "high"): 32,  # 0.80
        ("ja", "long_icl", "low"): 40,  # 1.00
        ("ja", "long_icl", "high"): 24,  # 0.60
        ("jn", "base", "n/a"): 30,  # 0.75
        ("jn", "long_icl", "n/a"): 38,  # 0.95
    }
)


def test_holm_and_bh_adjust_over_each_study_s_pairs_and_tests() -> None:
    """The family is one study's table: every pair (all choices), every test."""
    both = pl.concat([T17, RANDOM.with_columns(study=pl.lit("t"))])
    pairs = _pairs(both)
    tests = verdict_tests(both, consensus(both))
    for frame in (pairs, tests):
        assert set(frame["study"]) == {"s", "t"}
        for (study,), part in frame.group_by("study"):
            p = part["p"].to_numpy()
            ok = ~np.isnan(p.astype(float))
            for col, method in (("p_holm", "holm"), ("p_bh", "fdr_bh")):
                expected = multipletests(p[ok], method=method)[1]
                assert part[col].to_numpy()[ok] == pytest.approx(expected), (study, col)
    # one choice's pairs alone would be a smaller family, adjusted less
    effort = pairs.filter((pl.col("study") == "s") & (pl.col("choice") == "reasoning_effort"))
    for col, method in (("p_holm", "holm"), ("p_bh", "fdr_bh")):
        alone = multipletests(effort["p"].to_numpy(), method=method)[1]
        assert (effort[col].to_numpy() > alone + 1e-9).any(), col


def test_chi_square_matches_scipy_and_cochran_statsmodels() -> None:
    tests = verdict_tests(RANDOM, consensus(RANDOM))
    rows = correctness(RANDOM, consensus(RANDOM))
    got = {r["choice"]: r for r in tests.iter_rows(named=True)}
    for choice, column in (
        ("model", "judge"),
        ("prompt_level", "prompt_level"),
        ("reasoning_effort", "reasoning_effort"),
    ):
        kept = (
            rows.filter(pl.col("reasoning_effort") != "n/a")
            if choice == "reasoning_effort"
            else rows
        )
        table = kept.pivot(on="correct", index=column, values="item_id", aggregate_function="len")
        observed = table.drop(column).fill_null(0).to_numpy()
        chi2, p, dof, _ = sps.chi2_contingency(observed)  # Yates when dof = 1, as pingouin
        r = got[choice]
        assert (r["n_obs"], r["n_levels"], r["dof"]) == (kept.height, table.height, dof)
        assert r["statistic"] == pytest.approx(chi2) and r["p"] == pytest.approx(p)
        v = np.sqrt(chi2 / (observed.sum() * (min(observed.shape) - 1)))
        assert r["cramers_v"] == pytest.approx(v)
    assert got["model"]["n_levels"] == 3  # ja, jb, jn
    assert got["reasoning_effort"]["n_levels"] == 2  # "n/a" is no effort level
    wide = rows.pivot(
        on=["judge", "prompt_level", "reasoning_effort"], index="item_id", values="correct"
    )
    complete = wide.drop("item_id").drop_nulls().to_numpy()
    q = cochrans_q(complete)
    cochran = got["design"]
    assert (cochran["n_levels"], cochran["n_obs"], cochran["dof"]) == (13, complete.shape[0], 12)
    assert cochran["statistic"] == pytest.approx(q.statistic)
    assert cochran["p"] == pytest.approx(q.pvalue)


# all references TRUE, so correct = said TRUE; each design is right on the first k items
NESTED = _calls(
    {
        ("ja", "base", "default"): [1] * 8,
        ("ja", "long_icl", "default"): [1] * 2 + [0] * 6,
        ("jb", "base", "default"): [1] * 6 + [0] * 2,
        ("jb", "long_icl", "default"): [1] * 7 + [0],
    },
    [True] * 8,
)


def test_cochran_by_hand() -> None:
    (row,) = (
        verdict_tests(NESTED, consensus(NESTED))
        .filter(pl.col("test") == "cochran_q")
        .rows(named=True)
    )
    # columns right 8 2 6 7 (T = 23); rows 4 4 3 3 3 3 2 1 (Σ L² = 73); k = 4
    q = 3 * (4 * (64 + 4 + 36 + 49) - 23**2) / (4 * 23 - 73)
    assert row["statistic"] == pytest.approx(q) and row["dof"] == 3
    assert row["p"] == pytest.approx(sps.chi2.sf(q, 3))
    assert set(verdict_tests(NESTED, consensus(NESTED))["choice"]) == {
        "model",
        "prompt_level",
        "design",
    }  # one effort level: no effort test


def _views(settings: Settings, *names: str) -> duckdb.DuckDBPyConnection:
    """The named views, after stg_accuracy_metrics (the impact views count the designs without a
    scored item there; an empty part when the test wrote none)."""
    warehouse.ensure_tables(settings)
    con = duckdb.connect()
    for name in ("staging/stg_accuracy_metrics", *names):
        con.execute(warehouse.render_view(warehouse.SQL_DIR / f"{name}.sql", settings))
    return con


def test_levels_average_the_other_choices_judge_by_judge() -> None:
    """verdict_levels by hand: efforts averaged within a judge, then prompt levels, then
    judges; "n/a" is no effort level; a design without a value leaves the mean."""
    schema = {n: c.dtype.type for n, c in AccuracyMetrics.to_schema().columns.items()}
    rows = [
        # judge, prompt level, effort, accuracy, leniency (subset "all")
        ("ja", "base", "low", 0.80, 0.50),
        ("ja", "base", "high", 0.90, 0.25),
        ("ja", "long_icl", "low", 1.00, None),  # no errors
        ("jb", "base", "low", 0.50, 0.00),
        ("jb", "base", "high", 0.70, 1.00),
        ("jn", "base", "n/a", 0.70, 0.40),
        ("jn", "long_icl", "n/a", None, None),  # scored nothing
    ]
    base = dict.fromkeys(schema) | {"study": "s"}
    metrics = pl.DataFrame(
        [
            base
            | {"subset": "all", "judge": j, "model": f"m/{j}", "prompt_level": p}
            | {"reasoning_effort": e, "accuracy": acc, "leniency": len_}
            for j, p, e, acc, len_ in rows
        ]
        + [
            base
            | {"subset": "full", "judge": "ja", "model": "m/ja", "prompt_level": "base"}
            | {"reasoning_effort": "low", "accuracy": 1.0, "leniency": None}
        ],
        schema=schema,
    )
    out = verdict_levels(metrics)
    got = {
        (r["subset"], r["choice"], r["level"]): (
            r["n_judges"],
            r["n_designs"],
            r["accuracy"],
            r["leniency"],
        )
        for r in out.iter_rows(named=True)
    }
    a = pytest.approx
    assert {k[1:]: v for k, v in got.items() if k[0] == "all"} == {
        # ja: base (0.8 + 0.9) / 2, long 1.0 → 0.925 (not the flat 0.9 of its three designs)
        ("model", "ja"): (1, 3, a(0.925), a(0.375)),
        ("model", "jb"): (1, 2, a(0.6), a(0.5)),
        ("model", "jn"): (1, 1, a(0.7), a(0.4)),
        # base: judges 0.85, 0.6, 0.7 → mean 0.7167 (median 0.7; flat over designs 0.72)
        ("prompt_level", "base"): (3, 5, a((0.85 + 0.6 + 0.7) / 3), a((0.375 + 0.5 + 0.4) / 3)),
        ("prompt_level", "long_icl"): (1, 1, a(1.0), None),
        # low: ja (0.8 + 1.0) / 2, jb 0.5 → 0.7 (flat 0.767); jn has no effort level
        ("reasoning_effort", "low"): (2, 3, a(0.7), a(0.25)),
        ("reasoning_effort", "high"): (2, 2, a(0.8), a(0.625)),
    }
    assert got[("full", "model", "ja")] == (1, 1, 1.0, None)  # subsets do not mix


def _view_rows(con: duckdb.DuckDBPyConnection, sql: str) -> list[tuple]:
    return con.sql(sql).pl().rows()


def test_table_17_compares_levels_and_counts_every_judge(settings: Settings) -> None:
    pairs = _pairs(T17)
    metrics = accuracy_metrics(T17, consensus(T17))
    warehouse.write_table(settings, pairs, "verdict_pairs", "s")
    warehouse.write_table(settings, verdict_levels(metrics), "verdict_levels", "s")
    warehouse.write_table(settings, metrics, "accuracy_metrics", "s")
    con = _views(
        settings,
        "staging/stg_verdict_pairs",
        "staging/stg_verdict_levels",
        "marts/fct_verdict_choice_tests",
        "reports/tbl_verdict_impact",
        "reports/tbl_verdict_impact_levels",
        "reports/tbl_verdict_impact_pairs",
    )
    levels = _view_rows(
        con,
        "select choice, level, n_judges, n_designs, acc_pct, leniency_pct "
        "from tbl_verdict_impact_levels where subset = 'all'",
    )
    # every error is a false FALSE (leniency 0); ja long_icl low made none
    assert levels == [
        ("model", "ja", 1, 4, 82.5, 0.0),  # (0.85 + 0.80) / 2
        ("model", "jn", 1, 2, 85.0, 0.0),  # (0.75 + 0.95) / 2: a judge without effort control
        ("prompt_level", "base", 2, 3, 80.0, 0.0),  # (0.85 + 0.75) / 2
        ("prompt_level", "long_icl", 2, 3, 87.5, 0.0),  # (0.80 + 0.95) / 2
        ("reasoning_effort", "low", 1, 2, 95.0, 0.0),  # ja only
        ("reasoning_effort", "high", 1, 2, 70.0, 0.0),
    ]
    # McNemar p (exact, all discordant one way, D of 40): model D 2, 6, 14, 2 → p .5, .031,
    # .00012, .5; prompt 8, 4, 8 → .0078, .125, .0078; effort 4, 16 → .125, .00003. Holm over
    # the 9: the two smallest; BH: the four smallest (.031 > 5/9 · .05). TOST at ±5 points:
    # D = 2 or 4 inconclusive, D ≥ 6 beyond the margin ("no").
    impact = _view_rows(con, "select * exclude (study) from tbl_verdict_impact")
    assert impact == [
        # levels, mean and max |Δacc|, |Δleniency|, pairs, sig %, Holm %, BH %, margin, TOST,
        # designs without a scored item (none)
        ("model", 2, 2.5, 2.5, 0.0, 0.0, 4, 50.0, 25.0, 25.0, 5.0, 0, 2, 2, "no", 0),
        ("prompt_level", 2, 7.5, 7.5, 0.0, 0.0, 3, 66.7, 0.0, 66.7, 5.0, 0, 2, 1, "no", 0),
        ("reasoning_effort", 2, 25.0, 25.0, 0.0, 0.0, 2, 50.0, 50.0, 50.0, 5.0, 0, 1, 1, "no", 0),
    ]
    pairwise = _view_rows(
        con,
        "select choice, n_pairs, mean_abs_acc_diff_pct, max_abs_acc_diff_pct, sig_pct, "
        "sig_holm_pct, sig_bh_pct, n_equivalent, n_not_equivalent, n_inconclusive, equivalent "
        "from tbl_verdict_impact_pairs",
    )
    assert pairwise == [
        # model: |Δ| .05 .15 .35 .05 → mean 15 (Table 17: 2.5); effort .1 .4 → mean ≠ max
        ("model", 4, 15.0, 35.0, 50.0, 25.0, 25.0, 0, 2, 2, "no"),
        ("prompt_level", 3, 16.7, 20.0, 66.7, 0.0, 66.7, 0, 2, 1, "no"),
        ("reasoning_effort", 2, 25.0, 40.0, 50.0, 50.0, 50.0, 0, 1, 1, "no"),
    ]


def test_table_17_mean_and_max_over_pairs_of_levels(settings: Settings) -> None:
    """Three levels give three pairs of levels: mean ≠ max; a level without an accuracy is no
    level; only the "all" subset counts."""
    schema = {n: c.dtype.type for n, c in VerdictLevels.to_schema().columns.items()}
    rows = [
        # subset, choice, level, accuracy, leniency
        ("all", "prompt_level", "base", 0.80, 0.60),
        ("all", "prompt_level", "short_icl", 0.95, 0.20),
        ("all", "prompt_level", "long_icl", 0.85, None),  # no errors: no leniency pair
        ("all", "model", "ja", 0.90, 0.50),
        ("all", "model", "jb", 0.70, 0.10),
        ("all", "model", "jc", None, None),  # scored nothing
        ("full", "model", "jb", 0.10, 0.90),  # another subset
        ("all", "reasoning_effort", "low", 0.90, 0.50),
        ("all", "reasoning_effort", "high", None, None),  # one level with a value: no gap
    ]
    levels = pl.DataFrame(
        [
            {"study": "s", "subset": sub, "choice": c, "level": lv, "n_judges": 1}
            | {"n_designs": 1, "accuracy": acc, "leniency": len_}
            for sub, c, lv, acc, len_ in rows
        ],
        schema=schema,
    )
    warehouse.write_table(settings, levels, "verdict_levels", "s")
    warehouse.write_table(settings, _pair_rows([]), "verdict_pairs", "s")
    con = _views(
        settings,
        "staging/stg_verdict_pairs",
        "staging/stg_verdict_levels",
        "marts/fct_verdict_choice_tests",
        "reports/tbl_verdict_impact",
    )
    got = _view_rows(
        con,
        "select choice, n_levels, mean_acc_diff_pct, max_acc_diff_pct, mean_leniency_diff_pct, "
        "max_leniency_diff_pct, n_pairs, equivalent from tbl_verdict_impact",
    )
    assert got == [
        ("model", 2, 20.0, 20.0, 40.0, 40.0, None, None),  # no design pairs: no tests
        # |Δacc|: .15, .05, .10 → mean 10, max 15; |Δleniency|: base–short .40 only
        ("prompt_level", 3, 10.0, 15.0, 40.0, 40.0, None, None),
        ("reasoning_effort", 1, None, None, None, None, None, None),
    ]


def _pair_rows(rows: list[tuple]) -> pl.DataFrame:
    """(choice, p, p_holm, p_bh, equivalent) → verdict_pairs rows of study "s"."""
    schema = {n: c.dtype.type for n, c in VerdictPairs.to_schema().columns.items()}
    base = dict.fromkeys(schema) | {"study": "s", "margin": MARGIN}
    return pl.DataFrame(
        [
            base
            | {"choice": c, "judge_a": f"a{k}", "p": p, "p_holm": h, "p_bh": bh}
            | {"equivalent": e}
            for k, (c, p, h, bh, e) in enumerate(rows)
        ],
        schema=schema,
    )


def test_choice_verdicts_and_significance_cuts(settings: Settings) -> None:
    """fct_verdict_choice_tests: p < 0.05 strictly (a p on the cut is not significant), a pair
    without a p counts as not; "yes" needs every pair equivalent, one "no" makes it "no"."""
    pairs = _pair_rows(
        [
            ("model", 0.01, 0.05, 0.049, "yes"),
            ("model", None, None, None, "yes"),
            ("prompt_level", 0.049, 0.2, 0.05 - 1e-12, "yes"),  # within the cut's tolerance
            ("prompt_level", 0.3, 0.9, 0.6, "inconclusive"),
            ("reasoning_effort", 0.05, 0.05, 0.05, "no"),
            ("reasoning_effort", 0.001, 0.002, 0.002, "yes"),
            ("reasoning_effort", 0.04, 0.08, 0.06, "yes"),
        ]
    )
    warehouse.write_table(settings, pairs, "verdict_pairs", "s")
    con = _views(settings, "staging/stg_verdict_pairs", "marts/fct_verdict_choice_tests")
    got = _view_rows(
        con,
        "select choice, n_pairs, n_sig, n_sig_holm, n_sig_bh, n_equivalent, n_not_equivalent, "
        "n_inconclusive, equivalent from fct_verdict_choice_tests order by choice",
    )
    assert got == [
        ("model", 2, 1, 0, 1, 2, 0, 0, "yes"),
        ("prompt_level", 2, 1, 0, 0, 1, 0, 1, "inconclusive"),
        ("reasoning_effort", 3, 2, 1, 1, 2, 1, 0, "no"),
    ]


def test_impact_and_tests_views(settings: Settings) -> None:
    pairs = _pairs(NESTED)
    warehouse.write_table(settings, pairs, "verdict_pairs", "s")
    warehouse.write_table(settings, verdict_tests(NESTED, consensus(NESTED)), "verdict_tests", "s")
    con = _views(
        settings,
        "staging/stg_verdict_pairs",
        "staging/stg_verdict_tests",
        "marts/fct_verdict_choice_tests",
        "reports/tbl_verdict_impact_pairs",
        "reports/tbl_verdict_tests",
    )
    got = con.sql(
        "select choice, n_pairs, mean_abs_acc_diff_pct, max_abs_acc_diff_pct, sig_pct, "
        "sig_holm_pct, sig_bh_pct, equivalent from tbl_verdict_impact_pairs"
    )
    assert got.pl().rows() == [
        # model: |8 − 6| = 2 (exact p ½) and |2 − 7| = 5 (p 1/16) of 8 items
        ("model", 2, 43.8, 62.5, 0.0, 0.0, 0.0, "no"),
        # prompt level: |8 − 2| = 6 (p 1/32, significant; not after Holm or BH over the
        # study's 4 pairs: 4/32) and |6 − 7| = 1; TOST on 8 items: 5 or 6 discordant shows a
        # difference beyond ±5 points, 1 or 2 is inconclusive
        ("prompt_level", 2, 43.8, 75.0, 50.0, 0.0, 0.0, "no"),
    ]
    got = con.sql(
        "select test, choice, n_levels, n_obs, statistic, dof, sig, sig_holm, sig_bh, "
        "equivalent from tbl_verdict_tests"
    )
    # correct / wrong: ja 10 / 6, jb 13 / 3; base 14 / 2, long_icl 9 / 7 (Yates-corrected)
    model = sps.chi2_contingency([[10, 6], [13, 3]]).statistic  # 0.618
    prompt = sps.chi2_contingency([[14, 2], [9, 7]]).statistic  # 2.473
    # Holm / BH over the study's 3 tests: Cochran's p 0.0044 · 3 stays below 0.05
    assert got.pl().rows() == [
        ("chi2_independence", "model", 2, 32, round(model, 3), 1.0, "no", "no", "no", "no"),
        ("chi2_independence", "prompt_level", 2, 32, round(prompt, 3), 1.0, "no", "no", "no", "no"),
        ("cochran_q", "design", 4, 8, 13.105, 3.0, "yes", "yes", "yes", None),  # 249 / 19
    ]


@pytest.mark.parametrize(
    ("p", "sig"), [(0.05, False), (0.05 - 1e-12, False), (0.0499, True), (None, None)]
)
def test_verdict_test_rows_call_p_on_the_cut_not_significant(p, sig) -> None:
    from tasks.accuracy.verdict_impact import _test_row

    row = _test_row("s", "chi2_independence", "model", 2, 10, (3.8, 1.0, p, 0.2))
    assert row["sig"] is sig
