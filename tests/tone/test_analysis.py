"""Tone gaps: a planted style bonus is found and pure repeat noise is not (and without the plant
the claim fails); wins, flips, noise, original gaps, criteria and human relation by hand on
three texts; every cut with values on it and on each side; Holm / BH adjusted p against
statsmodels over the study family; the tone report views."""

import json
import math
from collections.abc import Callable

import duckdb
import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal
from statsmodels.stats.multitest import multipletests

from judgelab.settings import Settings
from schemas.tone_criterion_gaps import ToneCriterionGaps
from schemas.tone_gaps import ToneGaps
from schemas.tone_human_relation import ToneHumanRelation
from schemas.tone_scores import ToneScores
from schemas.tone_threshold_sweep import ToneThresholdSweep
from schemas.tone_version_scores import ToneVersionScores
from schemas.validate import TableError, validate
from tasks import warehouse
from tasks.tone.analysis import (
    THRESHOLDS,
    _distinguishable,
    criterion_gaps,
    human_relation,
    threshold_sweep,
    tone_gaps,
    version_scores,
)

SCHEMA = {n: c.dtype.type for n, c in ToneScores.to_schema().columns.items()}
REPEATS = 3


def _frame(rows: list[dict]) -> pl.DataFrame:
    return validate(pl.DataFrame(rows, schema=SCHEMA), ToneScores)


def _call(judge: str, variant: str, axis: str, pole: str, text: str, repeat: int,
          value: float | str, criteria: dict | None, human: float) -> dict:  # fmt: skip
    status, overall = (value, None) if isinstance(value, str) else ("ok", float(value))
    return {
        "study": "s",
        "judge": judge,
        "model": f"m/{judge}",
        "prompt_level": variant,
        "text_id": text,
        "axis": axis,
        "pole": pole,
        "rewriter": "none" if pole == "original" else "lexical",
        "repeat": repeat,
        "status": status,
        "overall": overall,
        "criteria": json.dumps(criteria) if criteria and status == "ok" else None,
        "human_score": human,
    }


# ── planted effects ────────────────────────────────────────────────────────────────────────

N_TEXTS = 60
RNG_QUALITY = np.random.default_rng(7)
QUALITY = RNG_QUALITY.uniform(3.5, 6.5, N_TEXTS)  # each text's true 1–10 score
HUMAN = QUALITY / 2 + RNG_QUALITY.normal(0, 0.3, N_TEXTS)  # its human rating, another scale


def _simulated(judge: str, noise_sd: float, bonus: float, seed: int) -> list[dict]:
    """A judge that scores quality + N(0, noise_sd) per call, plus `bonus` on the confident
    ("high") version; the original and the hesitant ("low") version get the quality alone."""
    rng = np.random.default_rng(seed)
    rows = []
    for t in range(N_TEXTS):
        for pole, shift in (("original", 0.0), ("high", bonus), ("low", 0.0)):
            for r in range(REPEATS):
                value = float(np.clip(QUALITY[t] + shift + rng.normal(0, noise_sd), 1, 10))
                text = f"t{t:02d}"
                rows.append(_call(judge, "plain", "confidence", pole, text, r, value, None,
                                  float(HUMAN[t])))  # fmt: skip
    return rows


def _row(out: pl.DataFrame, **match: str) -> dict:
    rows = out.filter(*(pl.col(k) == v for k, v in match.items()))
    assert rows.height == 1, match
    return rows.row(0, named=True)


def _bonus_claim(row: dict, planted: float) -> bool:
    """The claim the planted bonus must pass: its CI covers the plant, excludes 0, and the gap
    is distinguishable from the judge's repeat noise."""
    return row["gap_lo"] < planted < row["gap_hi"] and row["gap_lo"] > 0 and row["distinguishable"]


def test_planted_bonus_found_and_noise_not() -> None:
    scores = _frame(
        _simulated("bonus", noise_sd=0.3, bonus=0.5, seed=1)
        + _simulated("noisy", noise_sd=1.5, bonus=0.0, seed=2)
    )
    gaps = tone_gaps(scores)
    bonus = _row(gaps, judge="bonus")
    assert bonus["n_texts"] == N_TEXTS and bonus["repeats_hmean"] == pytest.approx(REPEATS)
    assert bonus["noise_sd"] == pytest.approx(0.3, abs=0.05)
    assert bonus["noise_yardstick"] == pytest.approx(bonus["noise_sd"] * math.sqrt(2 / 3))
    assert _bonus_claim(bonus, 0.5)
    assert bonus["gap_to_noise"] > 1
    assert bonus["gap_a_orig_lo"] < 0.5 < bonus["gap_a_orig_hi"]  # the bonus sits on A
    assert bonus["gap_b_orig_lo"] < 0 < bonus["gap_b_orig_hi"]
    noisy = _row(gaps, judge="noisy")
    assert noisy["noise_sd"] == pytest.approx(1.5, rel=0.15)
    assert noisy["distinguishable"] is False
    assert abs(noisy["gap_to_noise"]) < 1


def test_claim_fails_without_the_bonus() -> None:
    """The same judge and noise, once with the bonus and once without: only the first passes."""
    with_bonus = _row(tone_gaps(_frame(_simulated("bonus", 0.3, 0.5, seed=1))))
    without = _row(tone_gaps(_frame(_simulated("bonus", 0.3, 0.0, seed=1))))
    assert _bonus_claim(with_bonus, 0.5)
    assert not _bonus_claim(without, 0.5)
    assert without["gap_lo"] < 0 < without["gap_hi"] and without["distinguishable"] is False


def test_a_real_bonus_below_the_noise_is_not_distinguishable() -> None:
    """Distinguishable is about size, not only significance: a 0.5 bonus under repeat SD 1.5 is
    detected over 60 texts (CI excludes 0) but smaller than one text's noise (~1.2)."""
    row = _row(tone_gaps(_frame(_simulated("noisy", 1.5, 0.5, seed=3))))
    assert row["gap_lo"] > 0
    assert row["noise_yardstick"] > abs(row["gap"])
    assert row["distinguishable"] is False


def test_row_order_does_not_change_the_intervals() -> None:
    scores = _frame(_simulated("bonus", 0.3, 0.5, seed=1))
    shuffled = scores.sample(fraction=1.0, shuffle=True, seed=5)
    # equal up to summation order (means are float sums), not a different bootstrap draw
    assert_frame_equal(tone_gaps(shuffled), tone_gaps(scores), rel_tol=1e-12, abs_tol=1e-12)
    assert tone_gaps(scores, seed=1)["gap_lo"][0] != tone_gaps(scores, seed=0)["gap_lo"][0]


# ── three texts by hand ────────────────────────────────────────────────────────────────────

GOOD, WEAK = {"clarity": 4, "evidence": 3}, {"clarity": 2, "evidence": 3}
HUMANS = {"t1": 1.0, "t2": 2.0, "t3": 3.0, "t4": 4.0}
# (axis, pole, text, repeats, criteria); a repeat is a score or a failed status
VERSIONS = [
    ("confidence", "high", "t1", [6, 7, 8], GOOD),  # mean 7, SD 1
    ("confidence", "high", "t2", [5, 5.5, 6], GOOD),  # mean 5.5, SD 0.5
    ("confidence", "high", "t3", [6, 6, 6], GOOD),
    ("confidence", "high", "t4", [7, 7, 7], GOOD),  # its low version failed: not paired
    ("confidence", "low", "t1", [5, 5, 5], WEAK),
    ("confidence", "low", "t2", [6, 6, "unparseable"], WEAK),  # mean 6 over 2 ok repeats
    ("confidence", "low", "t3", [5, 6, 7], WEAK),  # mean 6, SD 1
    ("confidence", "low", "t4", ["error", "error", "error"], WEAK),
    ("fluency", "native", "t1", [7, 7, 7], None),
    ("fluency", "native", "t2", [6, 6, 6], None),
    ("fluency", "native", "t3", [5, 5, 5], None),
    ("fluency", "non_native", "t1", [6, 6, 6], None),
    ("fluency", "non_native", "t2", [6, 6, 6], None),
    ("fluency", "non_native", "t3", [4, 4, 4], None),
    ("none", "original", "t1", [6, 6, 6], None),
    ("none", "original", "t2", [5, 5, 5], None),
    ("none", "original", "t3", [6, 6, 6], None),
    ("none", "original", "t4", [7, 7, 7], None),
]
HAND = _frame(
    [
        _call("hand", "plain", axis, pole, text, r, v, crit, HUMANS[text])
        for axis, pole, text, values, crit in VERSIONS
        for r, v in enumerate(values)
    ]
)


def test_version_scores_by_hand() -> None:
    out = version_scores(HAND, threshold=6.0)
    assert out.height == len(VERSIONS)
    t1 = _row(out, axis="confidence", pole="high", text_id="t1")
    assert (t1["n_ok"], t1["mean_overall"], t1["sd_overall"]) == (3, 7.0, 1.0)
    assert t1["verdict_share"] == 1.0  # 6, 7 and 8 all pass: a score equal to 6 passes
    low = _row(out, axis="confidence", pole="low", text_id="t3")
    assert (low["sd_overall"], low["verdict_share"]) == (1.0, pytest.approx(2 / 3))  # 5 fails
    t2 = _row(out, axis="confidence", pole="low", text_id="t2")
    assert (t2["n_calls"], t2["n_ok"], t2["mean_overall"], t2["verdict_share"]) == (3, 2, 6, 1)
    t4 = _row(out, axis="confidence", pole="low", text_id="t4")
    assert (t4["n_ok"], t4["mean_overall"], t4["sd_overall"]) == (0, None, None)
    orig = _row(out, pole="original", text_id="t2")
    assert (orig["rewriter"], orig["mean_overall"], orig["verdict_share"]) == ("none", 5, 0)


def test_wins_flips_and_noise_by_hand() -> None:
    gaps = tone_gaps(HAND, threshold=6.0)
    c = _row(gaps, axis="confidence")
    # paired texts t1 t2 t3; high − low = 7 − 5, 5.5 − 6, 6 − 6
    assert (c["pole_a"], c["pole_b"], c["n_texts"]) == ("high", "low", 3)
    assert c["gap"] == pytest.approx((2 - 0.5 + 0) / 3)
    assert (c["mean_a"], c["mean_b"]) == (pytest.approx(18.5 / 3), pytest.approx(17 / 3))
    assert (c["n_a_wins"], c["n_b_wins"], c["n_ties"], c["win_ratio"]) == (1, 1, 1, 1.0)
    # at 6: high passes t1 t3, low passes t2 t3 (a mean equal to the threshold passes)
    assert (c["n_flip_a_pass"], c["n_flip_b_pass"]) == (1, 1)  # t1; t2
    assert c["share_flip_a_pass"] == c["share_flip_b_pass"] == pytest.approx(1 / 3)
    assert c["rank_biserial"] == pytest.approx(1 / 3)  # non-zero |d|: 2 (A) ranks 2, 0.5 ranks 1
    assert (c["ok_rate_a"], c["ok_rate_b"]) == (1.0, pytest.approx(8 / 12))
    # pooled repeat variance: (2·1 + 2·0.25 + 2·1) / (2+2+2+2+1+2) over the six paired versions
    assert c["noise_sd"] == pytest.approx(math.sqrt(4.5 / 11))
    r = 6 / (5 / 3 + 1 / 2)  # harmonic mean of ok repeats: five versions with 3, one with 2
    assert c["repeats_hmean"] == pytest.approx(r)
    assert c["noise_yardstick"] == pytest.approx(math.sqrt(4.5 / 11) * math.sqrt(2 / r))
    assert c["gap_to_noise"] == pytest.approx(c["gap"] / c["noise_yardstick"])
    # against the original: high − original on t1..t4 (t4's high is scored), low on t1..t3
    assert (c["n_a_orig"], c["gap_a_orig"]) == (4, pytest.approx((1 + 0.5 + 0 + 0) / 4))
    assert (c["n_b_orig"], c["gap_b_orig"]) == (3, pytest.approx((-1 + 1 + 0) / 3))

    f = _row(gaps, axis="fluency")  # native − non_native = 1, 0, 1: B never wins
    assert (f["pole_a"], f["pole_b"], f["gap"]) == ("native", "non_native", pytest.approx(2 / 3))
    assert (f["n_a_wins"], f["n_b_wins"], f["n_ties"], f["win_ratio"]) == (2, 0, 1, None)
    assert (f["n_flip_a_pass"], f["n_flip_b_pass"]) == (0, 0)  # 7/6, 6/6 pass; 5/4 fail
    assert (f["noise_sd"], f["noise_yardstick"], f["gap_to_noise"]) == (0.0, 0.0, None)


def test_threshold_sweep_by_hand() -> None:
    sweep = threshold_sweep(HAND)
    assert sweep.height == 2 * len(THRESHOLDS)
    assert sweep["threshold"].unique().sort().to_list() == [1 + 0.5 * k for k in range(19)]

    def at(axis: str, t: float) -> tuple:
        row = _row(sweep.filter(pl.col("threshold") == t), axis=axis)
        keys = ("n_texts", "pass_share_a", "pass_share_b", "share_flip_a_pass",
                "share_flip_b_pass")  # fmt: skip
        return tuple(row[k] for k in keys)

    third = pytest.approx(1 / 3)
    assert at("confidence", 6.0) == (3, pytest.approx(2 / 3), pytest.approx(2 / 3), third, third)
    assert at("confidence", 5.5) == (3, 1.0, pytest.approx(2 / 3), third, 0.0)  # t1 only
    assert at("fluency", 5.0) == (3, 1.0, pytest.approx(2 / 3), third, 0.0)  # t3: 5 vs 4
    assert at("fluency", 10.0) == (3, 0.0, 0.0, 0.0, 0.0)
    gaps = tone_gaps(HAND, threshold=5.5)
    assert _row(gaps, axis="confidence")["share_flip_a_pass"] == pytest.approx(1 / 3)


def test_criterion_gaps_by_hand() -> None:
    out = criterion_gaps(HAND)
    assert out.select("axis", "criterion").rows() == [
        ("confidence", "clarity"),
        ("confidence", "evidence"),
    ]  # the fluency versions carry no criteria
    clarity = _row(out, criterion="clarity")
    assert (clarity["n_texts"], clarity["mean_a"], clarity["mean_b"]) == (3, 4.0, 2.0)
    assert (clarity["gap"], clarity["gap_lo"], clarity["gap_hi"]) == (2.0, 2.0, 2.0)
    evidence = _row(out, criterion="evidence")
    assert (evidence["gap"], evidence["rank_biserial"]) == (0.0, None)


def test_bad_criteria_and_unknown_poles_raise() -> None:
    bad = HAND.with_columns(
        pl.when(pl.col("text_id") == "t3")
        .then(pl.lit('{"clarity": 7}'))
        .otherwise(pl.col("criteria"))
        .alias("criteria")
    )
    with pytest.raises(ValueError, match="criteria"):
        criterion_gaps(bad)
    with pytest.raises(ValueError, match="no pair"):
        tone_gaps(HAND, poles={"confidence": ("high", "low")})  # fluency has no pair
    with pytest.raises(TableError, match="ok_has_overall"):
        validate(HAND.with_columns(pl.lit(None, pl.Float64).alias("overall")), ToneScores)


def test_human_relation_by_hand() -> None:
    out = human_relation(HAND)
    c = _row(out, axis="confidence")
    # originals 6 5 6 7 vs humans 1 2 3 4: ranks (2.5, 1, 2.5, 4) vs (1, 2, 3, 4)
    assert c["n_originals"] == 4
    assert c["rho_original"] == pytest.approx(3 / math.sqrt(4.5 * 5))
    # gaps 2, −0.5, 0 vs humans 1, 2, 3: ranks (3, 1, 2) vs (1, 2, 3)
    assert (c["n_texts"], c["rho_gap_human"]) == (3, pytest.approx(-0.5))
    f = _row(out, axis="fluency")  # its texts are t1..t3: originals 6 5 6, gaps 1 0 1
    assert (f["n_originals"], f["n_texts"]) == (3, 3)
    assert f["rho_original"] == pytest.approx(0) and f["rho_gap_human"] == pytest.approx(0)


# ── views ──────────────────────────────────────────────────────────────────────────────────


def _views(settings: Settings, *names: str) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    for name in names:
        con.execute(warehouse.render_view(warehouse.SQL_DIR / f"{name}.sql", settings))
    return con


def test_tone_gap_and_flip_views(settings: Settings) -> None:
    warehouse.write_table(settings, tone_gaps(HAND), "tone_gaps", "s")
    warehouse.write_table(settings, threshold_sweep(HAND), "tone_threshold_sweep", "s")
    con = _views(
        settings,
        "staging/stg_tone_gaps",
        "staging/stg_tone_threshold_sweep",
        "reports/tbl_tone_gaps",
        "reports/tbl_tone_flips",
    )
    got = con.sql(
        "select axis, contrast, n_texts, gap, noise_sd, distinguishable, n_a_wins, n_b_wins, "
        "win_ratio, threshold, flip_a_pass_pct, flip_b_pass_pct, a_vs_orig, b_vs_orig, ok_b_pct "
        "from tbl_tone_gaps"
    ).fetchall()
    assert got == [
        # 0.5 < yardstick 0.64 × sqrt(2 / 2.77) = 0.54: not distinguishable
        ("confidence", "high vs low", 3, 0.5, 0.64, "no", 1, 1, 1.0, 6.0, 33.3, 33.3, 0.375, 0.0,
         66.7),
        # no repeat noise at all, but the CI over 3 texts reaches 0 (all draws t2: 1 in 27)
        ("fluency", "native vs non_native", 3, 0.667, 0.0, "no", 2, 0, None, 6.0, 0.0, 0.0, 0.333,
         -0.333, 100.0),
    ]  # fmt: skip
    flips = con.sql(
        "select axis, threshold, pass_a_pct, pass_b_pct, flip_a_pass_pct, flip_b_pass_pct, "
        "net_flip_pct from tbl_tone_flips where threshold in (5.5, 6)"
    ).fetchall()
    assert flips == [
        ("confidence", 5.5, 100.0, 66.7, 33.3, 0.0, 33.3),
        ("confidence", 6.0, 66.7, 66.7, 33.3, 33.3, 0.0),
        ("fluency", 5.5, 66.7, 66.7, 0.0, 0.0, 0.0),
        ("fluency", 6.0, 66.7, 66.7, 0.0, 0.0, 0.0),
    ]


# Three axes on two texts, two repeats each: whose pole B is a rewrite (confidence: low) and
# whose pole B is the text as written (verbosity: unpadded, formatting: prose).
AXES_SCORES = {
    ("confidence", "high"): {"t1": (8, 8), "t2": (7, 7)},
    ("confidence", "low"): {"t1": (6, 6), "t2": (7, 7)},
    ("verbosity", "padded"): {"t1": (9, 7), "t2": (6, 6)},
    ("verbosity", "unpadded"): {"t1": (5, 5), "t2": (5, 5)},
    ("formatting", "bullets"): {"t1": (5, 5), "t2": (4, 4)},
    ("formatting", "prose"): {"t1": (5, 5), "t2": (5, 5)},
    ("none", "original"): {"t1": (5, 5), "t2": (5, 5)},
}


def test_per_text_view_has_both_poles_on_every_axis(settings: Settings) -> None:
    """tbl_tone_per_text pairs each axis's own poles (A first, as tbl_tone_gaps' contrast), so
    verbosity and formatting, whose pole B is the original text, get their means and gaps."""
    scores = _frame(
        [
            _call("hand", "plain", axis, pole, text, r, v, None, 1.0)
            for (axis, pole), texts in AXES_SCORES.items()
            for text, values in texts.items()
            for r, v in enumerate(values)
        ]
    )
    warehouse.write_table(settings, version_scores(scores), "tone_version_scores", "s")
    warehouse.write_table(settings, tone_gaps(scores, n_boot=0), "tone_gaps", "s")
    con = _views(
        settings,
        "staging/stg_tone_version_scores",
        "staging/stg_tone_gaps",
        "reports/tbl_tone_per_text",
    )
    got = con.sql(
        "select axis, text_id, original_mean, a_mean, a_sd, b_mean, b_sd, gap "
        "from tbl_tone_per_text order by axis, text_id"
    ).fetchall()
    assert got == [
        ("confidence", "t1", 5.0, 8.0, 0.0, 6.0, 0.0, 2.0),
        ("confidence", "t2", 5.0, 7.0, 0.0, 7.0, 0.0, 0.0),
        ("formatting", "t1", 5.0, 5.0, 0.0, 5.0, 0.0, 0.0),
        ("formatting", "t2", 5.0, 4.0, 0.0, 5.0, 0.0, -1.0),
        ("verbosity", "t1", 5.0, 8.0, 1.41, 5.0, 0.0, 3.0),
        ("verbosity", "t2", 5.0, 6.0, 0.0, 5.0, 0.0, 1.0),
    ]
    # the per-text gaps average to the gap table's gap, axis by axis
    mean_gap = con.sql("select axis, avg(gap) from tbl_tone_per_text group by axis").fetchall()
    table = dict(con.sql("select axis, gap from stg_tone_gaps").fetchall())
    assert set(table) == {"confidence", "verbosity", "formatting"}
    assert dict(mean_gap) == pytest.approx(table)


P_COLUMNS = ("wilcoxon_p", "wilcoxon_p_holm", "wilcoxon_p_bh")


def _gap_rows(rows: list[tuple]) -> pl.DataFrame:
    """(judge, prompt level, gap, lo, hi[, p, p_holm, p_bh]) → tone_gaps rows of one
    rewriter and axis."""
    schema = {n: c.dtype.type for n, c in ToneGaps.to_schema().columns.items()}
    base = dict.fromkeys(schema) | {"study": "s", "rewriter": "lexical", "axis": "confidence"}
    return pl.DataFrame(
        [
            base
            | {"judge": e, "model": f"m/{e}", "prompt_level": v, "pole_a": "high"}
            | {"pole_b": "low", "gap": g, "gap_lo": lo, "gap_hi": hi}
            | dict(zip(P_COLUMNS, ps, strict=False))
            for e, v, g, lo, hi, *ps in rows
        ],
        schema=schema,
    )


def test_by_variant_view(settings: Settings) -> None:
    gaps = _gap_rows(
        [
            ("e1", "plain", 0.4, 0.2, 0.6),
            ("e1", "style_attention", 1.0, 0.8, 1.2),
            ("e1", "fact_first", 0.1, -0.1, 0.3),  # the defence removes the gap
            ("e2", "plain", 0.0, -0.2, 0.2),  # nothing to remove
            ("e2", "style_attention", 0.5, 0.1, 0.9),
            ("e2", "fact_first", 0.0, -0.2, 0.2),
            ("e3", "plain", 0.4, 0.2, 0.6),
            ("e3", "style_attention", 0.1, -0.1, 0.3),  # the control shows nothing
            ("e3", "fact_first", 0.3, 0.1, 0.5),  # the defence leaves most of the gap
            ("e3", "other", 9.0, 8.0, 10.0),  # not one of the three: left out here
        ]
    )
    warehouse.write_table(settings, gaps, "tone_gaps", "s")
    con = _views(settings, "staging/stg_tone_gaps", "reports/tbl_tone_by_variant")
    got = con.sql(
        "select judge, contrast, gap_plain, gap_style_attention, gap_fact_first, "
        "fact_first_lo, control_shows_gap, defence_removes_gap, fact_first_left_pct "
        "from tbl_tone_by_variant"
    ).fetchall()
    assert got == [
        ("e1", "high vs low", 0.4, 1.0, 0.1, -0.1, "yes", "yes", 25.0),
        ("e2", "high vs low", 0.0, 0.5, 0.0, -0.2, "yes", "n/a", None),
        ("e3", "high vs low", 0.4, 0.1, 0.3, 0.1, "no", "no", 75.0),
    ]


def test_criteria_and_human_views(settings: Settings) -> None:
    warehouse.write_table(settings, criterion_gaps(HAND), "tone_criterion_gaps", "s")
    warehouse.write_table(settings, human_relation(HAND), "tone_human_relation", "s")
    con = _views(
        settings,
        "staging/stg_tone_criterion_gaps",
        "staging/stg_tone_human_relation",
        "reports/tbl_tone_criteria",
        "reports/tbl_tone_human",
    )
    criteria = con.sql("select criterion, n_texts, gap, gap_lo, gap_hi from tbl_tone_criteria")
    assert criteria.fetchall() == [("clarity", 3, 2.0, 2.0, 2.0), ("evidence", 3, 0.0, 0.0, 0.0)]
    human = con.sql(
        "select axis, n_originals, rho_original, n_texts, rho_gap_human from tbl_tone_human"
    )
    assert human.fetchall() == [("confidence", 4, 0.632, 3, -0.5), ("fluency", 3, 0.0, 3, 0.0)]


TONE_TABLES = {
    "tone_scores": ToneScores,
    "tone_version_scores": ToneVersionScores,
    "tone_gaps": ToneGaps,
    "tone_threshold_sweep": ToneThresholdSweep,
    "tone_criterion_gaps": ToneCriterionGaps,
    "tone_human_relation": ToneHumanRelation,
}
TONE_REPORTS = ["tbl_tone_gaps", "tbl_tone_flips", "tbl_tone_criteria", "tbl_tone_human",
                "tbl_tone_by_variant"]  # fmt: skip


def test_tone_views_answer_before_any_tone_study(settings: Settings) -> None:
    """Each tone staging view has its schema's columns and types from the empty typed parts, and
    every tone report is empty."""
    sql_types = {"String": "VARCHAR", "Int64": "BIGINT", "Float64": "DOUBLE", "Boolean": "BOOLEAN"}
    assert set(TONE_TABLES) <= set(warehouse.ensure_tables(settings))
    con = _views(
        settings,
        *(f"staging/stg_{t}" for t in TONE_TABLES),
        *(f"reports/{r}" for r in TONE_REPORTS),
    )
    for table, model in TONE_TABLES.items():
        expected = [(n, sql_types[str(c.dtype)]) for n, c in model.to_schema().columns.items()]
        described = con.sql(f"describe stg_{table}").fetchall()
        assert [(r[0], r[1]) for r in described] == expected, table
    for view in TONE_REPORTS:
        assert con.sql(f"select count(*) from {view}").fetchall() == [(0,)], view


# ── cuts: each one with values on it and on either side ────────────────────────────────────

ON, WITHIN, BEYOND = 0.0, 1e-12, 1e-6  # offsets from a cut: on it, within tolerance, past it


def _pairs(pairs: dict[str, tuple[list, list]], judge: str = "e", variant: str = "plain",
           criteria: dict | None = None) -> pl.DataFrame:  # fmt: skip
    """{text: (repeats of pole A "high", repeats of pole B "low")} → tone_scores rows."""
    return _frame(
        [
            _call(judge, variant, "confidence", pole, text, r, v, criteria, 1.0)
            for text, (a, b) in pairs.items()
            for pole, values in (("high", a), ("low", b))
            for r, v in enumerate(values)
        ]
    )


NOISY_SIX = 0.1 * 3 * 20  # 6.000000000000001: 6 up to float noise


def test_noisy_six_is_six_up_to_float_noise() -> None:
    assert NOISY_SIX != 6.0
    assert abs(NOISY_SIX - 6.0) < 1e-12


@pytest.mark.parametrize(
    ("offset", "passes"),
    [(-BEYOND, True), (ON, True), (NOISY_SIX - 6.0, True), (WITHIN, True), (BEYOND, False)],
)
def test_pass_mark_is_at_least_the_cut(offset: float, passes: bool) -> None:
    """A mean on the pass mark passes (the genre's ≥), within tolerance too; above it fails."""
    cut = 6.0 + offset
    scores = _pairs({"on": ([6.0], [1.0]), "mean_on": ([5.0, 7.0], [1.0]), "far": ([9.0], [1.0])})
    gaps = _row(tone_gaps(scores, threshold=cut, n_boot=0))
    assert gaps["n_flip_a_pass"] == 1 + 2 * passes  # "far" always flips; the others if ≥
    assert gaps["share_flip_a_pass"] == pytest.approx((1 + 2 * passes) / 3)  # of paired texts
    sweep = _row(threshold_sweep(scores, thresholds=[cut]))
    assert sweep["pass_share_a"] == pytest.approx((1 + 2 * passes) / 3)
    assert sweep["share_flip_a_pass"] == pytest.approx((1 + 2 * passes) / 3)
    single = version_scores(scores, threshold=cut)
    assert _row(single, text_id="on", pole="high")["verdict_share"] == float(passes)


def test_mean_of_repeats_not_median() -> None:
    """A version's score is the mean of its ok repeats (5, 5, 8 → 6, median 5), a failed repeat
    left out of it and of the verdict share's denominator."""
    scores = _pairs({"t": ([5.0, 5.0, 8.0, "error"], [6.0, 6.0, 6.0, 6.0])})
    v = _row(version_scores(scores, threshold=6.0), pole="high")
    assert (v["n_calls"], v["n_ok"], v["mean_overall"]) == (4, 3, 6.0)
    assert v["verdict_share"] == pytest.approx(1 / 3)
    gaps = _row(tone_gaps(scores, threshold=6.0, n_boot=0))
    assert (gaps["mean_a"], gaps["gap"], gaps["n_ties"], gaps["n_flip_b_pass"]) == (6, 0, 1, 0)


def test_wins_and_ties_on_the_cut() -> None:
    """A gap of 0, or of float noise, is a tie; 1e-6 either way is a win."""
    scores = _pairs(
        {
            "tie": ([6.0], [6.0]),
            "noise": ([NOISY_SIX], [6.0]),
            "a_wins": ([6.0 + BEYOND], [6.0]),
            "b_wins": ([6.0], [6.0 + BEYOND]),
            "a_far": ([8.0], [6.0]),
        }
    )
    g = _row(tone_gaps(scores, n_boot=0))
    assert (g["n_a_wins"], g["n_b_wins"], g["n_ties"], g["win_ratio"]) == (2, 1, 2, 2.0)


@pytest.mark.parametrize(
    ("lo", "hi", "gap", "yardstick", "expected"),
    [
        (0.0, 1.0, 0.5, 0.1, False),  # the CI's lower end on 0: it does not exclude 0
        (WITHIN, 1.0, 0.5, 0.1, False),
        (BEYOND, 1.0, 0.5, 0.1, True),
        (-1.0, 0.0, -0.5, 0.1, False),  # the upper end on 0
        (-1.0, -WITHIN, -0.5, 0.1, False),
        (-1.0, -BEYOND, -0.5, 0.1, True),  # a negative gap counts by its size
        (0.1, 1.0, 0.1 + 0.2, 0.3, False),  # |gap| 0.30000000000000004: on the yardstick
        (0.1, 1.0, 0.3 + WITHIN, 0.3, False),
        (0.1, 1.0, 0.3 + BEYOND, 0.3, True),
        (0.1, 1.0, 0.3 - BEYOND, 0.3, False),
        (-1.0, -0.1, -0.3 - BEYOND, 0.3, True),
        (-1.0, -0.1, -0.3, 0.3, False),
        (None, 1.0, 0.5, 0.1, None),
        (0.1, 1.0, 0.5, None, None),
    ],
)
def test_distinguishable_cuts(
    lo: float | None,
    hi: float | None,
    gap: float | None,
    yardstick: float | None,
    expected: bool | None,
) -> None:
    assert _distinguishable(lo, hi, gap, yardstick) is expected


@pytest.mark.parametrize(("d", "expected"), [(0.0, False), (WITHIN, False), (BEYOND, True)])
def test_distinguishable_from_the_data(d: float, expected: bool) -> None:
    """No repeat noise (yardstick 0) and every text's gap d: the CI is [d, d]."""
    scores = _pairs({f"t{i}": ([6.0 + d] * 2, [6.0] * 2) for i in range(4)})
    g = _row(tone_gaps(scores, n_boot=200))
    assert (g["gap_lo"], g["gap_hi"], g["noise_yardstick"]) == (
        pytest.approx(d, abs=1e-13),
        pytest.approx(d, abs=1e-13),
        0.0,
    )
    assert g["distinguishable"] is expected


# ── multiple comparisons: Holm and BH over the study's family ──────────────────────────────


def _study(name: str, plan: list[tuple[str, str, float, int]], n_texts: int = 25) -> list[dict]:
    """(judge, prompt level, bonus on A, seed) → calls of study `name`: quality +
    N(0, 1) per call, the bonus growing with quality (mean `bonus`), criteria clarity
    (bonus-driven) and evidence (noise) 1–4."""
    rows = []
    for judge, variant, bonus, seed in plan:
        rng = np.random.default_rng(seed)
        for t in range(n_texts):
            grows = bonus * (QUALITY[t] - 3.5) / 1.5
            for pole, shift in (("original", 0.0), ("high", grows), ("low", 0.0)):
                for r in range(2):
                    value = float(np.clip(QUALITY[t] + shift + rng.normal(0, 1.0), 1, 10))
                    clarity = int(np.clip(round(2.5 + shift + rng.normal(0, 0.8)), 1, 4))
                    crit = {"clarity": clarity, "evidence": int(rng.integers(1, 5))}
                    call = _call(judge, variant, "confidence", pole, f"t{t:02d}", r, value,
                                 crit, float(HUMAN[t]))  # fmt: skip
                    rows.append(call | {"study": name})
    return rows


S1 = [("e1", "plain", 0.6, 11), ("e1", "fact_first", 0.2, 12), ("e2", "plain", 0.0, 13),
      ("e2", "fact_first", 0.4, 14)]  # fmt: skip
S2 = [("e1", "plain", 0.3, 21), ("e3", "plain", 0.0, 22), ("e3", "x", 0.8, 23)]
# two studies, several judges and prompt levels: each family choice gives other p
FAMILIES = _frame(_study("s1", S1) + _study("s2", S2))


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(np.allclose(a, b, rtol=1e-9, atol=0))


def _expected(out: pl.DataFrame, p: str, family: list[str], method: str) -> np.ndarray:
    """statsmodels' adjusted p of column `p` within each `family` group, in `out`'s order."""
    frame = out.with_row_index("_row")
    got = np.full(out.height, np.nan)
    for _, grp in frame.group_by(family):
        ok = grp.filter(pl.col(p).is_not_null())
        if ok.height:
            got[ok["_row"].to_numpy()] = multipletests(ok[p].to_numpy(), method=method)[1]
    return got


@pytest.mark.parametrize(
    ("make", "p_columns"),
    [
        (lambda s: tone_gaps(s, n_boot=0), ["wilcoxon_p"]),
        (lambda s: criterion_gaps(s, n_boot=0), ["wilcoxon_p"]),
        (human_relation, ["p_original", "p_gap_human"]),
    ],
    ids=["tone_gaps", "criterion_gaps", "human_relation"],
)
def test_adjusted_p_is_statsmodels_over_the_study(
    make: Callable[[pl.DataFrame], pl.DataFrame], p_columns: list[str]
) -> None:
    """Holm and BH over all of one study's tests (each p column its own family): equal to
    statsmodels there, and different from a per-row, per-judge or pooled family."""
    out = make(FAMILIES)
    for p in p_columns:
        raw = out[p].to_numpy()
        assert np.isfinite(raw).all() and out.height >= 7
        for suffix, method in (("holm", "holm"), ("bh", "fdr_bh")):
            got = out[f"{p}_{suffix}"].to_numpy()
            np.testing.assert_allclose(got, _expected(out, p, ["study"], method), rtol=1e-12)
            for wrong in (["study", "judge"], ["study", "prompt_level"], ["model"]):
                assert not _same(got, _expected(out, p, wrong, method)), (p, method, wrong)
            pooled = _expected(out.with_columns(study=pl.lit("one")), p, ["study"], method)
            assert not _same(got, pooled), (p, method)
            assert (got >= raw * (1 - 1e-12)).all() and not _same(got, raw)
        holm, bh = out[f"{p}_holm"].to_numpy(), out[f"{p}_bh"].to_numpy()
        assert (holm >= bh * (1 - 1e-12)).all() and not _same(holm, bh)


def test_holm_keeps_the_real_gap_and_drops_chance_ones() -> None:
    """A study of 21 gap tests: 20 judges with no tone effect (some significant at 0.05 by
    chance) and one with a real bonus. After Holm only the real one is significant."""
    nulls = [_simulated(f"null{k:02d}", 0.3, 0.0, seed=100 + k) for k in range(20)]
    scores = _frame([row for rows in nulls for row in rows] + _simulated("real", 0.3, 0.5, 1))
    gaps = tone_gaps(scores, n_boot=0)
    assert gaps.height == 21
    null = gaps.filter(pl.col("judge") != "real")
    real = _row(gaps, judge="real")
    assert null.filter(pl.col("wilcoxon_p") < 0.05).height >= 1  # chance findings exist
    assert real["wilcoxon_p_holm"] < 0.05 and real["wilcoxon_p_bh"] < 0.05
    assert (null["wilcoxon_p_holm"] >= 0.05).all()
    assert (null["wilcoxon_p_bh"] >= 0.05).all()


SIG_CASES = [0.05 - BEYOND, 0.05 - WITHIN, 0.05, 0.05 + BEYOND, None]
SIG_EXPECTED = ["yes", "no", "no", "no", None]  # p < 0.05
OTHERS = (0.01, 0.9, 0.01)  # the other two p columns while one runs through SIG_CASES
OTHERS_SIG = ("yes", "no", "yes")


def _sig_rows() -> list[tuple[int, int, tuple]]:
    """(varied column, case, (p, p_holm, p_bh)): each column through the cases in turn."""
    return [
        (k, i, tuple(x if j == k else OTHERS[j] for j in range(3)))
        for k in range(3)
        for i, x in enumerate(SIG_CASES)
    ]


def _sig_expected() -> list[tuple]:
    return [
        (f"{k}{i}", *(SIG_EXPECTED[i] if j == k else OTHERS_SIG[j] for j in range(3)))
        for k, i, _ in _sig_rows()
    ]


def test_significance_flags_on_the_cut(settings: Settings) -> None:
    """sig / sig_holm / sig_bh: p < 0.05, a p on 0.05 (or within 1e-9) is not below it."""
    rows = [("e", f"{k}{i}", 0.1, 0.0, 0.2, *ps) for k, i, ps in _sig_rows()]
    warehouse.write_table(settings, _gap_rows(rows), "tone_gaps", "s")
    schema = {n: c.dtype.type for n, c in ToneCriterionGaps.to_schema().columns.items()}
    crit = pl.DataFrame(
        [
            dict.fromkeys(schema)
            | {"study": "s", "judge": "e", "model": "m", "prompt_level": "plain"}
            | {"rewriter": "lexical", "axis": "confidence", "criterion": f"{k}{i}", "n_texts": 3}
            | dict(zip(P_COLUMNS, ps, strict=True))
            for k, i, ps in _sig_rows()
        ],
        schema=schema,
    )
    warehouse.write_table(settings, crit, "tone_criterion_gaps", "s")
    con = _views(settings, "staging/stg_tone_gaps", "staging/stg_tone_criterion_gaps",
                 "reports/tbl_tone_gaps", "reports/tbl_tone_criteria")  # fmt: skip
    got = con.sql(
        "select prompt_level, sig, sig_holm, sig_bh from tbl_tone_gaps order by prompt_level"
    ).fetchall()
    assert got == _sig_expected()
    got = con.sql("select criterion, sig, sig_holm, sig_bh from tbl_tone_criteria").fetchall()
    assert got == _sig_expected()


def test_by_variant_cuts(settings: Settings) -> None:
    """CI ends on 0 (or within 1e-9) contain it; the adjusted flags follow p < 0.05 after Holm
    / BH, and the defence's fact_first p unadjusted."""
    gaps = _gap_rows(
        [
            ("on", "plain", 0.4, 0.0, 0.6, 0.01, 0.05, 0.05 - BEYOND),  # plain CI touches 0
            ("on", "style_attention", 1.0, 0.0, 1.2, 0.01, 0.05, 0.05 - WITHIN),
            ("on", "fact_first", 0.1, 0.0, 0.3, 0.2, 0.9, 0.9),
            ("within", "plain", 0.4, WITHIN, 0.6, 0.001, 0.01, 0.05 - WITHIN),
            ("within", "style_attention", -1.0, -1.2, -WITHIN, 0.01, 0.05 - BEYOND, 0.05),
            ("within", "fact_first", 0.1, WITHIN, 0.3, 0.05, 0.9, 0.9),  # fact_first p on cut
            ("beyond", "plain", 0.4, BEYOND, 0.6, 0.001, 0.01, 0.01),
            ("beyond", "style_attention", -1.0, -1.2, -BEYOND, 0.01, 0.02, 0.02),
            ("beyond", "fact_first", 0.1, BEYOND, 0.3, 0.05 - BEYOND, 0.9, 0.9),
            ("ff_on", "plain", 0.4, 0.2, 0.6, 0.001, 0.01, 0.01),
            ("ff_on", "fact_first", 0.1, 0.0, 0.3, 0.05 - WITHIN, 0.9, 0.9),  # contains 0
            ("ff_within", "plain", 0.4, 0.2, 0.6, 0.001, 0.05 - WITHIN, 0.01),
            ("ff_within", "fact_first", -0.1, -0.3, -WITHIN, 0.05 + BEYOND, 0.9, 0.9),
        ]
    )
    warehouse.write_table(settings, gaps, "tone_gaps", "s")
    con = _views(settings, "staging/stg_tone_gaps", "reports/tbl_tone_by_variant")
    got = con.sql(
        "select judge, control_shows_gap, defence_removes_gap, fact_first_left_pct, "
        "control_shows_gap_holm, control_shows_gap_bh, defence_removes_gap_holm, "
        "defence_removes_gap_bh from tbl_tone_by_variant order by judge"
    ).fetchall()
    assert got == [
        ("beyond", "yes", "no", 25.0, "yes", "yes", "no", "no"),
        ("ff_on", None, "yes", 25.0, None, None, "yes", "yes"),
        ("ff_within", None, "yes", -25.0, None, None, "n/a", "yes"),
        ("on", "no", "n/a", None, "no", "no", "n/a", "yes"),
        ("within", "no", "n/a", None, "yes", "no", "yes", "n/a"),
    ]


def test_adjusted_p_reaches_the_views(settings: Settings) -> None:
    warehouse.write_table(settings, tone_gaps(FAMILIES, n_boot=0), "tone_gaps", "s")
    warehouse.write_table(settings, human_relation(FAMILIES), "tone_human_relation", "s")
    con = _views(settings, "staging/stg_tone_gaps", "staging/stg_tone_human_relation",
                 "reports/tbl_tone_gaps", "reports/tbl_tone_human")  # fmt: skip
    gaps = con.sql("select * from tbl_tone_gaps").pl().sort("study", "judge", "prompt_level")
    want = tone_gaps(FAMILIES, n_boot=0).sort("study", "judge", "prompt_level")
    for col in P_COLUMNS:
        np.testing.assert_allclose(gaps[col].to_numpy(), want[col].to_numpy(), rtol=1e-12)
    sig = gaps.select(
        (pl.col("sig_holm") == "yes") == (pl.col("wilcoxon_p_holm") < 0.05),
        (pl.col("sig_bh") == "yes") == (pl.col("wilcoxon_p_bh") < 0.05),
    )
    assert sig.to_series(0).all() and sig.to_series(1).all()
    cols = ["p_original_holm", "p_original_bh", "p_gap_human_holm", "p_gap_human_bh"]
    order = "study, judge, prompt_level"
    human = con.sql(f"select {', '.join(cols)} from tbl_tone_human order by {order}").fetchall()
    want = human_relation(FAMILIES).sort("study", "judge", "prompt_level")
    np.testing.assert_allclose(np.array(human, dtype=float), want.select(cols).to_numpy())
