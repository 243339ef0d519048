"""The accuracy study's paired tests on pairwise verdicts: a call is an item, right when its
winner is the human-preferred answer; a tie is wrong, a failed call and an unlabelled pair are
no item. A planted prompt-level effect is found by McNemar and Cochran's Q, and two identical
designs are equivalent by TOST."""

from __future__ import annotations

import polars as pl
from scipy import stats

from schemas.pairwise_verdicts import PairwiseVerdicts
from schemas.validate import validate
from tasks.pairwise import verdict_tests

COLUMNS = list(PairwiseVerdicts.to_schema().columns)


def design(level: str, winners: list[str | None], judge: str = "j") -> list[tuple]:
    """One design's calls: pair i in order ab, every pair preferring a; None = unparseable."""
    return [
        ("s", judge, f"m/{judge}", level, "n/a", f"p{i}", "a", 0,
         "ok" if w else "unparseable", {"a": "A", "b": "B", "tie": "tie"}.get(w), w, "a")
        for i, w in enumerate(winners)
    ]  # fmt: skip


def frame(rows: list[tuple]) -> pl.DataFrame:
    return validate(pl.DataFrame(rows, schema=COLUMNS, orient="row"), PairwiseVerdicts)


def test_correctness_counts_ties_wrong_and_leaves_failed_and_unlabelled_calls_out() -> None:
    rows = design("base", ["a", "b", "tie", None])
    rows.append(("s", "j", "m/j", "base", "n/a", "p9", "b", 0, "ok", "A", "b", None))
    got = verdict_tests.correctness(frame(rows))
    assert got.select("item_id", "correct").rows() == [
        ("p0#ab#0", 1),
        ("p1#ab#0", 0),
        ("p2#ab#0", 0),
    ]


def test_a_planted_level_effect_is_found_and_identical_designs_are_equivalent() -> None:
    n = 40
    right, wrong = ["a"] * n, ["a"] * 10 + ["b"] * (n - 10)  # "short" is wrong on 30 of 40
    verdicts = frame(design("base", right) + design("long", right) + design("short", wrong))
    tests = verdict_tests.verdict_tests(verdicts)
    (q,) = tests.filter(pl.col("test") == "cochran_q").iter_rows(named=True)
    # Cochran's Q by hand: k = 3 designs, column sums 40, 40, 10, row sums 3 (10 items), 2 (30)
    cols, rows_ = [40, 40, 10], [3] * 10 + [2] * 30
    k, total = 3, sum(cols)
    by_hand = (
        (k - 1)
        * (k * sum(c * c for c in cols) - total**2)
        / (k * total - sum(r * r for r in rows_))
    )
    assert q["n_levels"] == 3 and q["n_obs"] == n
    assert abs(q["statistic"] - by_hand) < 1e-9 and q["statistic"] == 60.0
    assert abs(q["p"] - stats.chi2.sf(by_hand, 2)) < 1e-12
    pairs = verdict_tests.verdict_pairs(verdicts, margin=0.05)
    assert pairs["choice"].unique().to_list() == ["prompt_level"] and pairs.height == 3
    same = pairs.filter((pl.col("prompt_level_a") == "base") & (pl.col("prompt_level_b") == "long"))
    assert same["b"].item() == same["c"].item() == 0 and same["equivalent"].item() == "yes"
    planted = pairs.filter(pl.col("prompt_level_b") == "short")
    assert planted["c"].to_list() == [0, 0] and planted["b"].to_list() == [30, 30]
    # 30 discordant calls (≥ 25): McNemar's chi-square with continuity, (|b − c| − 1)² / (b + c)
    mcnemar = stats.chi2.sf((30 - 1) ** 2 / 30, 1)
    assert ((planted["p"] - mcnemar).abs() < 1e-12).all()
    assert (planted["equivalent"] == "no").all()


def test_variance_of_right_or_wrong_is_statsmodels_type_one_with_the_order_as_a_factor() -> None:
    """A planted judge effect and a planted order effect on 12 pairs: the decomposition's
    sums of squares and df equal statsmodels' sequential ANOVA of the same model."""
    import numpy as np
    import statsmodels.formula.api as smf
    from statsmodels.stats.anova import anova_lm

    rng = np.random.default_rng(7)
    rows = []
    for judge, strong in (("good", 0.9), ("weak", 0.5)):
        for level, lift in (("base", 0.0), ("cot", 0.05)):
            for i in range(12):
                for shown, bonus in (("a", 0.1), ("b", -0.1)):  # a shown first helps
                    right = rng.random() < strong + lift + bonus
                    winner = "a" if right else "b"
                    position = "A" if winner == shown else "B"
                    rows.append(("s", judge, f"m/{judge}", level, "n/a", f"p{i}", shown, 0,
                                 "ok", position, winner, "a"))  # fmt: skip
    verdicts = frame(rows)
    got = verdict_tests.variance_components(verdicts)
    data = verdict_tests.correctness(verdicts).to_pandas()
    data["order"] = data["item_id"].str.split("#").str[1]
    data["pair"] = data["item_id"].str.split("#").str[0]
    formula = (
        "correct ~ C(judge) + C(prompt_level) + C(order) + C(pair) + C(judge):C(prompt_level)"
        " + C(judge):C(order) + C(prompt_level):C(order) + C(judge):C(pair)"
    )
    sm = anova_lm(smf.ols(formula, data).fit(), typ=1)
    assert got["component"].to_list() == [
        "judge", "prompt_level", "order", "item", "judge:prompt_level", "judge:order",
        "prompt_level:order", "judge:item", "residual",
    ]  # fmt: skip
    assert np.allclose(got["ss"].to_numpy(), sm["sum_sq"].to_numpy(), atol=1e-9)
    assert got["df"].to_list() == sm["df"].astype(int).to_list()
    shares = dict(got.select("component", "eta_sq").iter_rows())
    assert shares["judge"] == max(shares[c] for c in ("judge", "prompt_level", "order"))


def test_variance_tables_add_the_g_study_of_pairs_and_a_d_study_over_orders() -> None:
    """Pairs that are hard for every judge (planted) and one unparseable call: the G-study's
    item is the pair, its facets judge × prompt level × order on the balanced subset (the pair
    with the failed call is left out of it), and the D-study projects 1–2 orders, no scales."""
    import numpy as np

    from tasks import gtheory

    rng = np.random.default_rng(11)
    hard = {f"p{i}": i % 3 == 0 for i in range(15)}
    rows = []
    for judge in ("good", "weak", "mid"):
        for level in ("base", "cot"):
            for pair, is_hard in hard.items():
                for shown in ("a", "b"):
                    right = rng.random() < (0.3 if is_hard else 0.9)
                    winner = "a" if right else "b"
                    failed = (judge, level, pair, shown) == ("weak", "cot", "p4", "b")
                    rows.append(("s", judge, f"m/{judge}", level, "n/a", pair, shown, 0,
                                 "unparseable" if failed else "ok",
                                 None if failed else ("A" if winner == shown else "B"),
                                 None if failed else winner, "a"))  # fmt: skip
    verdicts = frame(rows)
    out = verdict_tests.variance_tables(verdicts)
    comp = out["variance_components"]
    assert (
        comp.filter(pl.col("method") == "type1_anova")
        .drop("method", "ms", "variance", "variance_share", "note")
        .equals(
            verdict_tests.variance_components(verdicts).drop(
                "method", "ms", "variance", "variance_share", "note"
            )
        )
    )
    random = {r["component"]: r for r in comp.filter(pl.col("method") == "random_ems").to_dicts()}
    assert {"order", "order:item", "judge:prompt_level:order"} <= set(random)
    assert "14 of 15 items" in random["item"]["note"]
    # by hand from the same cells: the pairs but p4, right-or-wrong per pair × design
    cells = (
        verdict_tests.correctness(verdicts)
        .with_columns(
            pl.col("item_id").str.extract(r"#(ab|ba)#", 1).alias("order"),
            pl.col("item_id").str.extract(r"^(p\d+)#", 1).alias("item_id"),
            pl.col("correct").cast(pl.Float64),
        )
        .filter(pl.col("item_id") != "p4")
    )
    own = {
        r["component"]: r["variance"]
        for r in gtheory.g_study(cells, verdict_tests.FACTORS, "correct")[0]
    }
    assert {c: random[c]["variance"] for c in own} == own
    assert random["item"]["variance"] > 0.05  # the planted hard pairs
    d = out["d_study"]
    assert d.height == 5 * 3 * 2 and d["n_scales"].is_null().all()
    assert set(d["n_orders"]) == {1, 2}
    best = d.sort("g_relative").row(-1, named=True)
    assert (best["n_judges"], best["n_prompt_levels"], best["n_orders"]) == (5, 3, 2)
