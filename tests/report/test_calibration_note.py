"""The calibration sentence of accuracy and pairwise headlines (report/calibration_note)."""

import polars as pl

from tasks.report.calibration_note import calibration_sentence, with_calibration
from tasks.report.panel import Headline


def _rows(ece, lo, hi, bad, study="s") -> pl.DataFrame:
    return pl.DataFrame(
        {"study": study, "ece": ece, "ece_lo": lo, "ece_hi": hi, "miscalibrated": bad},
        schema={"study": pl.String, "ece": pl.Float64, "ece_lo": pl.Float64,
                "ece_hi": pl.Float64, "miscalibrated": pl.Boolean},
    )  # fmt: skip


def test_one_design_gives_its_ece_and_interval_and_says_when_it_is_miscalibrated():
    assert calibration_sentence(_rows([0.318], [0.2], [0.45], [True])) == (
        "Calibration: ECE 0.32 (95% CI 0.20–0.45), worse than a calibrated judge's."
    )
    assert calibration_sentence(_rows([0.05], [None], [None], [False])) == "Calibration: ECE 0.05."


def test_designs_give_the_range_and_how_many_are_miscalibrated():
    rows = _rows([0.55, 0.32, None, 0.41], [0.4, 0.2, None, 0.3], [0.6, 0.4, None, 0.5],
                 [True, False, None, True])  # fmt: skip
    assert calibration_sentence(rows) == (
        "Calibration: ECE 0.32–0.55 across 3 designs, 2 of them worse than a calibrated judge's."
    )
    assert calibration_sentence(rows.filter(pl.col("ece").is_null())) == ""


def test_the_sentence_follows_the_full_headline_and_the_top_stays():
    said = {"s": Headline("Best: 80%.", "Best design: j · base, 80% accurate.")}
    rows = pl.concat([_rows([0.1], [0.05], [0.2], [False]), _rows([None], [None], [None], [None],
                                                                     study="t")])  # fmt: skip
    out = with_calibration(said, rows, ["s", "t"])
    assert out["s"].top == "Best: 80%."
    assert out["s"].full == (
        "Best design: j · base, 80% accurate. Calibration: ECE 0.10 (95% CI 0.05–0.20)."
    )
    assert "t" not in out  # no probabilities, nothing said
    assert with_calibration({}, rows, ["s"])["s"].top.startswith("Calibration: ECE 0.10")
