"""G-study and D-study: the EMS solution by hand on a tiny design and against the full EMS
system, unbiasedness on a planted crossed design, the balanced subset, and the D-study's
coefficients against pingouin's average-measure ICCs."""

import itertools
import math

import numpy as np
import pingouin as pg
import polars as pl
import pytest

from tasks import gtheory

FACETS = ("judge", "prompt_level", "scale")


def _cells(y: np.ndarray, facets: tuple[str, ...]) -> pl.DataFrame:
    """A dense array (facets…, item) → one row per cell, level names f"{facet}{index}"."""
    rows = [
        {
            **{f: f"{f}{i}" for f, i in zip(facets, idx[:-1], strict=True)},
            "item_id": f"i{idx[-1]:03d}",
            "y": v,
        }
        for idx, v in np.ndenumerate(y)
    ]
    return pl.DataFrame(rows)


def test_tiny_design_by_hand():
    # 3 items × 2 judges (one facet): grand mean 4; item means 2, 4, 6; judge means 3.5, 4.5.
    # SS item = 2·(4+0+4) = 16 (df 2, MS 8); SS judge = 3·(0.25+0.25) = 1.5 (df 1, MS 1.5);
    # SS total = 9+0+2.25+1+0+6.25 = 18.5; residual (judge × item cells ∓0.5, ±0.5, 0)
    # = 18.5-16-1.5 = 1 (df 2, MS 0.5). EMS: σ²res = 0.5; σ²item = (8-0.5)/2 = 3.75;
    # σ²judge = (1.5-0.5)/3 = 1/3.
    y = np.array([[1.0, 4.0, 5.5], [3.0, 4.0, 6.5]])  # judge × item
    rows, sizes = gtheory.g_study(_cells(y, ("judge",)), ("judge",), "y")
    got = {r["component"]: r for r in rows}
    assert np.sum((y - 4) ** 2) == pytest.approx(18.5)
    assert got["item"]["ss"] == pytest.approx(16.0) and got["item"]["df"] == 2
    assert got["judge"]["ss"] == pytest.approx(1.5) and got["judge"]["df"] == 1
    assert got["residual"]["ss"] == pytest.approx(1.0) and got["residual"]["ms"] == 0.5
    assert got["residual"]["variance"] == pytest.approx(0.5)
    assert got["item"]["variance"] == pytest.approx(3.75)
    assert got["judge"]["variance"] == pytest.approx(1 / 3)
    assert sizes == {"judge": (2, 2), "item_id": (3, 3)}


def test_negative_estimate_is_zero_with_a_note():
    # judges agree on the mean exactly (MS judge = 0 < MS residual): σ²judge would be negative
    y = np.array([[1.0, 4.0, 7.0], [3.0, 4.0, 5.0]])
    got = {r["component"]: r for r in gtheory.g_study(_cells(y, ("judge",)), ("judge",), "y")[0]}
    assert got["judge"]["raw"] < 0
    assert got["judge"]["variance"] == 0.0
    assert got["judge"]["note"].startswith("negative estimate")
    assert got["item"]["note"] is None


def test_back_substitution_equals_the_full_ems_system():
    """The solver's top-down substitution against np.linalg.solve of E[MS] = C·σ²."""
    rng = np.random.default_rng(3)
    y = rng.normal(size=(3, 2, 4, 5))
    anova = gtheory.mean_squares(y)
    ms = {e: ss / df for e, (df, ss) in anova.items()}
    effs = list(ms)
    c = np.array(
        [
            [
                math.prod(y.shape[a] for a in range(4) if a not in b) if set(a_) <= set(b) else 0
                for b in effs
            ]
            for a_ in effs
        ],
        dtype=float,
    )
    direct = np.linalg.solve(c, np.array([ms[e] for e in effs]))
    solved = gtheory.ems_solve(ms, y.shape)
    np.testing.assert_allclose([solved[e] for e in effs], direct, rtol=1e-10, atol=1e-12)
    # the SS of a balanced crossing add up to the total
    assert sum(ss for _, ss in anova.values()) == pytest.approx(float(((y - y.mean()) ** 2).sum()))


# planted σ² per effect of judge (4) × prompt_level (3) × scale (3) × item (40); the rest 0
PLANTED = {
    "item": 0.5,
    "judge": 0.3,
    "prompt_level": 0.1,
    "scale": 0.2,
    "judge:item": 0.2,
    "prompt_level:item": 0.05,
    "scale:item": 0.1,
    "judge:prompt_level": 0.04,
    "residual": 0.25,
}
SHAPE = (4, 3, 3, 40)
REPS = 300


def test_planted_components_are_recovered_within_monte_carlo_error():
    """Unbiasedness: over REPS simulated studies (seed fixed), the mean unmodified estimate of
    each of the 15 components is within 4 Monte Carlo standard errors (sd / √REPS) of the
    planted value (0 for the unplanted ones). A facet with 3–4 levels gives a single study's
    main-effect estimate a huge spread (df 2–3), so one study cannot be held to a tight
    tolerance; the mean of 300 can. 4 SE: a false alarm per component has probability 6e-5."""
    rng = np.random.default_rng(20261207)
    names = ("judge", "prompt_level", "scale", "item")
    estimates = {}
    for _ in range(REPS):
        y = np.zeros(SHAPE)
        for eff in gtheory.effects(FACETS):
            sigma2 = PLANTED.get(gtheory.name(eff, 4), 0.0)
            if sigma2:
                axes = [names.index(f) for f in eff]
                shape = [SHAPE[a] if a in axes else 1 for a in range(4)]
                y = y + rng.normal(scale=math.sqrt(sigma2), size=shape)
        anova = gtheory.mean_squares(y)
        raw = gtheory.ems_solve({e: ss / df for e, (df, ss) in anova.items()}, SHAPE)
        for eff, v in raw.items():
            estimates.setdefault(gtheory.name(tuple(names[a] for a in eff), 4), []).append(v)
    assert len(estimates) == 15
    for component, values in estimates.items():
        mean, se = np.mean(values), np.std(values, ddof=1) / math.sqrt(REPS)
        assert abs(mean - PLANTED.get(component, 0.0)) < 4 * se, component
    # and the tolerance is tight enough to matter: the item-facet components are pinned
    # to within a few percent
    assert np.std(estimates["judge:item"], ddof=1) / math.sqrt(REPS) < 0.01


def test_g_study_on_a_planted_frame_uses_the_three_facets():
    rng = np.random.default_rng(1)
    y = rng.normal(size=SHAPE) + rng.normal(scale=2.0, size=(1, 1, 1, SHAPE[3]))
    rows, sizes = gtheory.g_study(_cells(y, FACETS), FACETS, "y")
    assert len(rows) == 15
    got = {r["component"]: r["variance"] for r in rows}
    assert got["item"] > 1.0 and got["residual"] > 0.5
    assert sizes["item_id"] == (40, 40)


def test_balanced_subset_drops_the_worst_level_then_items():
    y = np.arange(2 * 3 * 5, dtype=float).reshape(2, 3, 5)
    cells = _cells(y, ("judge", "prompt_level"))
    # prompt_level2 lacks 6 of its 10 cells; item i004 lacks one cell of 6
    cells = cells.filter(
        ~((pl.col("prompt_level") == "prompt_level2") & (pl.col("item_id") < "i003"))
        & ~((pl.col("item_id") == "i004") & (pl.col("judge") == "judge0"))
    )
    kept, sizes = gtheory.balanced_subset(cells, ("judge", "prompt_level"))
    assert sizes == {"judge": (2, 2), "prompt_level": (2, 3), "item_id": (4, 5)}
    assert kept.height == 2 * 2 * 4
    assert "prompt_level2" not in kept["prompt_level"].to_list()
    assert "i004" not in kept["item_id"].to_list()


def test_a_one_level_facet_is_left_out():
    y = np.random.default_rng(2).normal(size=(3, 1, 6))
    rows, sizes = gtheory.g_study(_cells(y, ("judge", "scale")), ("judge", "scale"), "y")
    assert sizes["scale"] == (1, 1)
    assert {r["component"] for r in rows} == {"judge", "item", "residual"}


def test_d_study_at_the_g_study_sizes_is_the_average_measure_icc():
    """With one random facet, Eρ² over the n judges of the G-study is ICC(C,k) (consistency of
    the judges' mean) and Φ is ICC(A,k) (absolute agreement): pingouin computes both."""
    rng = np.random.default_rng(5)
    n_j, n_i = 4, 30
    y = (
        rng.normal(size=(1, n_i))
        + rng.normal(scale=0.7, size=(n_j, 1))
        + rng.normal(scale=0.8, size=(n_j, n_i))
    )
    rows, _ = gtheory.g_study(_cells(y, ("judge",)), ("judge",), "y")
    comps = {r["component"]: r["variance"] for r in rows}
    got = gtheory.d_study(comps, {"judge": n_j})
    long = _cells(y, ("judge",)).to_pandas()
    icc = pg.intraclass_corr(long, targets="item_id", raters="judge", ratings="y").set_index(
        "Type"
    )["ICC"]
    assert got["g_relative"] == pytest.approx(icc["ICC(C,k)"], rel=1e-9)
    assert got["phi"] == pytest.approx(icc["ICC(A,k)"], rel=1e-9)
    # more judges, more reliable; one judge is the single-measure ICC
    one = gtheory.d_study(comps, {"judge": 1})
    assert one["g_relative"] == pytest.approx(icc["ICC(C,1)"], rel=1e-9)
    assert gtheory.d_study(comps, {"judge": 8})["g_relative"] > got["g_relative"]


def test_d_study_divides_each_component_by_its_conditions():
    comps = {
        gtheory.name(e, 3): float(k)
        for k, e in enumerate(gtheory.effects(("judge", "scale")), start=1)
    }
    # effects order: judge 1, scale 2, item 3, judge:scale 4, judge:item 5, scale:item 6, res 7
    got = gtheory.d_study(comps, {"judge": 2, "scale": 3})
    rel = 5 / 2 + 6 / 3 + 7 / 6
    assert got["var_rel_error"] == pytest.approx(rel)
    assert got["var_abs_error"] == pytest.approx(rel + 1 / 2 + 2 / 3 + 4 / 6)
    assert got["g_relative"] == pytest.approx(3 / (3 + rel))


def test_cube_refuses_an_incomplete_crossing():
    cells = _cells(np.ones((2, 3)), ("judge",)).head(5)
    with pytest.raises(ValueError):
        gtheory.cube(cells, ("judge", "item_id"), "y")


@pytest.mark.parametrize("shape", [(2, 3), (3, 2, 4)])
def test_effects_cover_every_subset(shape):
    facets = tuple(f"f{k}" for k in range(len(shape) - 1))
    assert len(gtheory.effects(facets)) == 2 ** len(shape) - 1
    assert len(list(itertools.chain(gtheory.effects(facets)))) == len(set(gtheory.effects(facets)))


def test_no_g_study_without_a_varying_facet_or_without_two_items():
    rng = np.random.default_rng(4)
    one_design = _cells(rng.normal(size=(1, 6)), ("judge",))
    assert gtheory.g_study(one_design, ("judge",), "y")[0] == []
    one_item = _cells(rng.normal(size=(3, 1)), ("judge",))
    assert gtheory.g_study(one_item, ("judge",), "y")[0] == []
