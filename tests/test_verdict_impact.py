"""Impact tests: McNemar discordant counts and p against pingouin, chi-square against scipy,
Cochran's Q against statsmodels and by hand; single-choice pairs only; the two report views."""

import itertools

import duckdb
import numpy as np
import pingouin as pg
import polars as pl
import pytest
from scipy import stats as sps
from statsmodels.stats.contingency_tables import cochrans_q

from judgelab.settings import Settings
from schemas.validate import validate
from schemas.verdicts import Verdicts
from tasks import warehouse
from tasks.consensus import consensus
from tasks.verdict_impact import correctness, mcnemar, verdict_pairs, verdict_tests

SCHEMA = {
    "study": pl.String,
    "judge": pl.String,
    "model": pl.String,
    "prompt_level": pl.String,
    "reasoning_effort": pl.String,
    "item_id": pl.String,
    "repeat": pl.Int64,
    "status": pl.String,
    "verdict": pl.Int64,
    "reference": pl.Boolean,
}


def _calls(designs: dict[tuple, list], reference: list[bool | None]) -> pl.DataFrame:
    """{(judge, level, effort): one entry per item, 1/0 or a status} → verdicts, one repeat."""
    rows = []
    for (judge, level, effort), entries in designs.items():
        for k, v in enumerate(entries):
            status, verdict = ("ok", int(v)) if not isinstance(v, str) else (v, None)
            design = ("s", judge, f"m/{judge}", level, effort)
            rows.append((*design, f"i{k:02d}", 0, status, verdict, reference[k]))
    return validate(pl.DataFrame(rows, schema=SCHEMA, orient="row"), Verdicts)


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
    pairs = verdict_pairs(RANDOM, consensus(RANDOM))
    # only-model: 3 levels × 2 efforts; only-level: 2 judges × 2 efforts × 3; only-effort: 2 × 3;
    # jn (no effort control) differs from every other design in two choices
    assert pairs.height == 6 + 12 + 6
    assert dict(pairs.group_by("choice").len().iter_rows()) == {
        "model": 6,
        "prompt_level": 12,
        "reasoning_effort": 6,
    }
    assert "jn" not in set(pairs["judge_a"]) | set(pairs["judge_b"])
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
    (row,) = verdict_pairs(frame, consensus(frame)).iter_rows(named=True)
    assert (row["b"], row["c"], row["odds_ratio"], row["or_corrected"]) == (3, 0, 7.0, True)
    assert (row["accuracy_a"], row["accuracy_b"], row["acc_diff"]) == (1.0, 0.25, 0.75)


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
    con = duckdb.connect()
    for name in names:
        con.execute(warehouse.render_view(warehouse.SQL_DIR / f"{name}.sql", settings))
    return con


def test_impact_and_tests_views(settings: Settings) -> None:
    pairs = verdict_pairs(NESTED, consensus(NESTED))
    warehouse.write_table(settings, pairs, "verdict_pairs", "s")
    warehouse.write_table(settings, verdict_tests(NESTED, consensus(NESTED)), "verdict_tests", "s")
    con = _views(
        settings,
        "staging/stg_verdict_pairs",
        "staging/stg_verdict_tests",
        "reports/tbl_verdict_impact",
        "reports/tbl_verdict_tests",
    )
    assert con.sql("select * from tbl_verdict_impact").pl().rows() == [
        # model: |8 − 6| = 2 (exact p ½) and |2 − 7| = 5 (p 1/16) of 8 items
        ("s", "model", 2, 43.8, 62.5, 0.0),
        # prompt level: |8 − 2| = 6 (p 1/32, significant) and |6 − 7| = 1
        ("s", "prompt_level", 2, 43.8, 75.0, 50.0),
    ]
    got = con.sql(
        "select test, choice, n_levels, n_obs, statistic, dof, sig from tbl_verdict_tests"
    )
    # correct / wrong: ja 10 / 6, jb 13 / 3; base 14 / 2, long_icl 9 / 7 (Yates-corrected)
    model = sps.chi2_contingency([[10, 6], [13, 3]]).statistic  # 0.618
    prompt = sps.chi2_contingency([[14, 2], [9, 7]]).statistic  # 2.473
    assert got.pl().rows() == [
        ("chi2_independence", "model", 2, 32, round(model, 3), 1.0, "no"),
        ("chi2_independence", "prompt_level", 2, 32, round(prompt, 3), 1.0, "no"),
        ("cochran_q", "design", 4, 8, 13.105, 3.0, "yes"),  # 249 / 19
    ]
