"""Holm and Benjamini–Hochberg adjustments against statsmodels' `multipletests`."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from statsmodels.stats.multitest import multipletests

from tasks.multiplicity import adjust, with_adjusted

STATSMODELS = {"holm": "holm", "bh": "fdr_bh"}


@pytest.mark.parametrize("method", ["holm", "bh"])
@pytest.mark.parametrize("seed", range(6))  # statsmodels' Holm runs gc.collect: ~0.25 s a call
def test_adjust_matches_statsmodels_on_random_p(method: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 300))
    p = rng.uniform(0, 1, n) ** rng.uniform(0.5, 4)  # skewed towards 0, some near 1
    p[rng.uniform(size=n) < 0.2] = rng.choice(p, 1)  # ties
    p[rng.uniform(size=n) < 0.1] = np.nan  # untested
    ok = ~np.isnan(p)
    got = adjust(p, method)
    assert np.isnan(got[~ok]).all()
    np.testing.assert_allclose(
        got[ok], multipletests(p[ok], method=STATSMODELS[method])[1], rtol=0, atol=1e-15
    )


def test_adjust_small_cases_by_hand() -> None:
    p = np.array([0.04, 0.01, np.nan, 0.03])
    np.testing.assert_allclose(adjust(p, "holm"), [0.06, 0.03, np.nan, 0.06])
    np.testing.assert_allclose(adjust(p, "bh"), [0.04, 0.03, np.nan, 0.04])
    assert np.isnan(adjust([np.nan], "bh")).all()
    with pytest.raises(ValueError, match="unknown method"):
        adjust(p, "bonferroni")


def test_with_adjusted_adjusts_within_each_family_and_keeps_row_order() -> None:
    frame = pl.DataFrame({"fam": ["a", "b", "a", "b", "a"], "p": [0.01, 0.02, None, 0.04, 0.03]})
    out = with_adjusted(frame, "p", ["fam"], "q")
    assert out["fam"].to_list() == frame["fam"].to_list()
    assert out["q_holm"].to_list() == pytest.approx([0.02, 0.04, None, 0.04, 0.03])
    assert out["q_bh"].to_list() == pytest.approx([0.02, 0.04, None, 0.04, 0.03])
