"""What `judgelab run` prints of tbl_rating_performance: fail% counts every failed call."""

from __future__ import annotations

import polars as pl

from tasks.rating import report


def test_fail_pct_counts_unanswered_calls_too() -> None:
    """A judge whose every call got no answer (error_rate 1.0) is 100% failed, not 0%; one
    with a quarter of its answers unparseable and a tenth unanswered, 35%."""
    table = pl.DataFrame(
        {
            "study": ["s", "s"],
            "judge": ["dead", "sloppy"],
            "prompt_level": ["base", "base"],
            "scale": ["likert7", "likert7"],
            "n_items": [0, 10],
            "error_rate": [1.0, 0.1],
            "parse_fail_pct": [0.0, 25.0],
            **{c: [None, 0.1] for c in ["bias", "bias_lo", "bias_hi", "mae"]},
            **{c: [None, 0.5] for c in ["kripp_alpha", "alpha_lo", "alpha_hi"]},
            "sig": [None, ""],
            "effect": [None, "small"],
            "human_mae": [0.5, 0.5],
            "human_alpha": [0.8, 0.8],
            "readout": ["answer", "answer"],
        }
    )
    (shown,) = report.console(None, ["s"], table)
    assert shown["fail%"].to_list() == [100.0, 35.0]
