"""Human ceiling: one rating against the mean of the item's other ratings, checked by hand."""

import krippendorff
import numpy as np
import polars as pl
import pytest

from tasks.rating.human_ceiling import human_ceiling, leave_one_out_pairs
from tasks.stats import CI_COLUMNS


def _items(ranges: dict[str, tuple[float, float]]) -> pl.DataFrame:
    return pl.DataFrame(
        [(item, lo, hi) for item, (lo, hi) in ranges.items()],
        schema=["item_id", "human_min", "human_max"],
        orient="row",
    )


def _ratings(rows: list[tuple[str, int, float]]) -> pl.DataFrame:
    return pl.DataFrame(
        rows, schema={"item_id": pl.String, "rater": pl.Int64, "rating": pl.Float64}, orient="row"
    )


RATINGS = _ratings(
    [
        ("a", 0, 2.0),  # vs mean(−2, 0) = −1
        ("a", 1, -2.0),  # vs mean(2, 0) = 1
        ("a", 2, 0.0),  # vs mean(2, −2) = 0
        ("b", 0, 4.0),  # vs 2   (range 0..4: ×1.5 on 1–7)
        ("b", 1, 2.0),  # vs 4
        ("c", 1, 1.0),  # vs 1
        ("c", 3, 1.0),  # vs 1
        ("d", 5, 3.0),  # the only rating of d: no pair
        ("e", 6, 1.0),  # e was not sampled by the study
        ("e", 7, 3.0),
    ]
)
ITEMS = _items({"a": (-4, 4), "b": (0, 4), "c": (-4, 4), "d": (-4, 4)})


def test_pairs_by_hand() -> None:
    """−4..4 → 1–7 is 4 + 0.75x; 0..4 → 1–7 is 1 + 1.5x (all exact in binary)."""
    assert leave_one_out_pairs(RATINGS, ITEMS).rows() == [
        ("a", 0, 5.5, 3.25),
        ("a", 1, 2.5, 4.75),
        ("a", 2, 4.0, 4.0),
        ("b", 0, 7.0, 4.0),
        ("b", 1, 4.0, 7.0),
        ("c", 1, 4.75, 4.75),
        ("c", 3, 4.75, 4.75),
    ]


def test_human_ceiling_by_hand() -> None:
    m = human_ceiling("s", RATINGS, ITEMS, n_boot=200, seed=0).row(0, named=True)
    assert (m["study"], m["n_items"], m["n_pairs"], m["n_raters"]) == ("s", 3, 7, 4)
    # |single − others| on 1–7: a: 3·0.75, 3·0.75, 0; b: 2·1.5, 2·1.5; c: 0, 0
    assert m["mae"] == pytest.approx((2.25 + 2.25 + 3 + 3) / 7)
    assert m["bias"] == pytest.approx(0, abs=1e-12)  # leave-one-out differences sum to 0
    assert m["abs_bias"] == pytest.approx(0, abs=1e-12)
    single_and_others = [
        [5.5, 2.5, 4.0, 7.0, 4.0, 4.75, 4.75],
        [3.25, 4.75, 4.0, 4.0, 7.0, 4.75, 4.75],
    ]
    ref = krippendorff.alpha(
        reliability_data=np.array(single_and_others), level_of_measurement="interval"
    )
    assert m["alpha"] == pytest.approx(ref)
    assert m["mae_lo"] <= m["mae"] <= m["mae_hi"]
    assert m["alpha_lo"] <= m["alpha_hi"] <= 1


def test_cluster_bootstrap_is_seeded_and_needs_two_items() -> None:
    rng = np.random.default_rng(1)
    n = 120
    truth = rng.uniform(-3, 3, n)
    rows = [
        (f"i{i}", r, float(np.clip(round(t + rng.normal(0, 1)), -4, 4)))
        for i, t in enumerate(truth)
        for r in range(3)
    ]
    ratings, items = _ratings(rows), _items({f"i{i}": (-4, 4) for i in range(n)})
    m = human_ceiling("s", ratings, items, n_boot=1000, seed=3)
    assert m.equals(human_ceiling("s", ratings.reverse(), items, n_boot=1000, seed=3))
    assert not m.equals(human_ceiling("s", ratings, items, n_boot=1000, seed=4))
    row = m.row(0, named=True)
    assert row["mae_lo"] < row["mae"] < row["mae_hi"]
    assert row["alpha_lo"] < row["alpha"] < row["alpha_hi"]
    none = human_ceiling("s", ratings, items, n_boot=0, seed=3).row(0, named=True)
    assert none["mae"] == row["mae"] and all(none[c] is None for c in CI_COLUMNS)
    one_item = human_ceiling("s", RATINGS.filter(pl.col("item_id") == "a"), ITEMS, 1000, 0)
    assert one_item["n_pairs"].item() == 3
    assert all(one_item[c].item() is None for c in CI_COLUMNS)


def test_no_item_with_two_ratings_gives_one_row_of_nulls() -> None:
    means_only = _ratings([("a", 0, 1.5), ("b", 0, -2.0)])
    m = human_ceiling("user", means_only, ITEMS, n_boot=100, seed=0)
    assert m.height == 1
    row = m.row(0, named=True)
    assert (row["study"], row["n_items"], row["n_pairs"], row["n_raters"]) == ("user", 0, 0, 0)
    assert all(row[c] is None for c in ["bias", "abs_bias", "mae", "alpha", *CI_COLUMNS])
