"""A perfect judge: one equal to the human means up to rounding has α = 1, and the rating
table says so. Human means 0, 20, …, 100 on a 0–100 scale, judged on the 0–1 `unit` scale:
1 + 6·0.6 and 1 + 6·60/100 differ in the last bit, and interval α's old Σv² − (Σv)²/k form
gave 1.0000000000000007, which the schema refuses (le=1): the analysis exited 2 and no rating
table was written. Fast: the analysis on planted frames through Parquet and the views; slow:
the same judge through `judgelab run` (the fake planted provider, no LLM)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from test_flow_e2e import judgelab

from judgelab.settings import Settings
from schemas.plan import DESIGN_COLUMNS
from tasks import warehouse
from tasks.judging.scales import load_scales
from tasks.rating.metrics import rating_metrics
from tasks.rating.rescale import rescale_scores

RATINGS = [0, 20, 40, 60, 80, 100] * 2  # human means, 0–100; 12 items
PERFORMANCE = "select kind, n_items, kripp_alpha, alpha_lo, alpha_hi from tbl_rating_performance"


def planted_scores(ratings: list[int]) -> pl.DataFrame:
    """`scores` as the score stage writes them for a judge that answers each item's human
    mean on `unit` (0.01 steps, as the planted fake does), rescaled to 1–7 by rescale_scores."""
    items = pl.DataFrame(
        {
            "item_id": [f"i{k:02d}" for k in range(len(ratings))],
            "human_mean": [float(r) for r in ratings],
            "human_min": 0.0,
            "human_max": 100.0,
        }
    )
    plan = items.select(
        pl.format("k{}", "item_id").alias("key"),
        pl.lit("perfect").alias("study"),
        pl.lit("oracle").alias("judge"),
        pl.lit("fake/planted").alias("model"),
        pl.lit("sentiment").alias("task"),
        pl.lit("base").alias("prompt_level"),
        pl.lit("v1").alias("prompt_version"),
        pl.lit("unit").alias("scale"),
        pl.lit("n/a").alias("reasoning_effort"),
        "item_id",
        pl.lit(0, pl.Int64).alias("repeat"),
    ).select(DESIGN_COLUMNS)
    judgments = plan.select(
        "key",
        pl.lit("ok").alias("status"),
        pl.Series("score", [round(r / 100, 2) for r in ratings]),
    )
    return rescale_scores(plan, judgments, items, load_scales())


def test_a_judge_equal_to_the_human_means_up_to_rounding_has_alpha_1(settings: Settings) -> None:
    scores = planted_scores(RATINGS)
    judge, human = scores["score_1to7"].to_numpy(), scores["human_1to7"].to_numpy()
    assert 0 < np.abs(judge - human).max() < 1e-15  # equal up to rounding, not exactly
    metrics = rating_metrics(scores, n_boot=200, seed=1)  # validated (le=1) inside
    row = metrics.row(0, named=True)
    assert row["kripp_alpha"] == 1.0 and row["alpha_lo"] == row["alpha_hi"] == 1.0
    warehouse.write_table(settings, metrics, "rating_metrics", "perfect")
    warehouse.publish_views(settings)
    assert warehouse.query(settings, PERFORMANCE).rows() == [("judge", 12, 1.0, 1.0, 1.0)]


STUDY = """[study]
name = "perfect"
task = "sentiment"
benchmark = "file"
sample_size = 0
prompt_levels = ["base"]
scales = ["unit"]

[study.data]
path = "ratings.csv"
id_column = "id"
text_column = "text"
mean_column = "rating"
scale_min = 0
scale_max = 100
direction = "ascending"

[study.analysis]
bootstrap = 200

[[judges]]
name = "oracle"
model = "fake/planted"
extra = {{ truth = "{truth}" }}
"""


@pytest.mark.slow
def test_a_perfect_judge_study_finishes_with_alpha_1(tmp_path: Path) -> None:
    """The planted fake answers each text's human mean (as a share of 0–100) on `unit`."""
    texts = [f"sentence number {k}" for k in range(len(RATINGS))]
    rows = [f'{k},"{t}",{r}' for k, (t, r) in enumerate(zip(texts, RATINGS, strict=True))]
    (tmp_path / "ratings.csv").write_text("id,text,rating\n" + "\n".join(rows) + "\n")
    truth = {t: r / 100 for t, r in zip(texts, RATINGS, strict=True)}
    (tmp_path / "truth.json").write_text(json.dumps(truth))
    study_file = tmp_path / "perfect.toml"
    study_file.write_text(STUDY.format(truth=tmp_path / "truth.json"))
    data = tmp_path / "data"
    judgelab(data, "run", str(study_file))
    settings = Settings(data_dir=data)
    scores = warehouse.read_table(settings, "scores", "perfect")
    assert 0 < (scores["score_1to7"] - scores["human_1to7"]).abs().max() < 1e-15
    assert warehouse.query(settings, PERFORMANCE).rows() == [("judge", 12, 1.0, 1.0, 1.0)]
