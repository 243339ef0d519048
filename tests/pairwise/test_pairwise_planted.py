"""Simulation: two fake pairwise judges run through the whole pairwise flow (`judgelab run`):

  biased  the first position wins 0.15 beyond chance (first_bias 0.15), else the truth with
          20% coin flips        → bias recovered inside its 95% CI, flagged by the sign test
  fair    the same without the plant (first_bias 0)
                                → CI covers 0, not flagged (the test's false-alarm rate is 5%;
                                  this seed is one of the 95%)

300 synthetic pairs (no benchmark text), the human's choice put as A or B by a seeded coin;
the truth file tells the fake judge, per message, at which position the better answer sits.
Over 40 variants of this set (tasks/pairwise/analysis.py's interval and test, measured when
written) the 95% interval covered 0.15 in 38 and the fair judge was flagged in 1.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import polars as pl
import pytest
from test_flow_e2e import judgelab

from judgelab.settings import Settings
from judgelab.study import load_study
from tasks import warehouse
from tasks.judging.scales import load_scales
from tasks.pairwise.plan import build_plan, split_item
from tasks.pairwise.stages import pairs_table

pytestmark = pytest.mark.slow

N_PAIRS = 300
STUDY = """
[study]
name = "planted-pairwise"
type = "pairwise"
task = "pairwise"
benchmark = "file"
sample_size = 0
seed = 11
prompt_levels = ["base"]
scales = ["winner"]

[study.pairs]
path = "pairs.csv"
id_column = "id"
preference_column = "human"

[[judges]]
name = "biased"
model = "fake/planted"
concurrency = 32
extra = {{ truth = "{truth}", first_bias = 0.15, noise = 0.2 }}

[[judges]]
name = "fair"
model = "fake/planted"
concurrency = 32
extra = {{ truth = "{truth}", first_bias = 0.0, noise = 0.2 }}
"""


def write_study(folder: Path) -> Path:
    """The pairs file, the study and the truth file (built from the plan's messages)."""
    rng = random.Random(2)
    rows = [
        {"id": i, "question": f"Question {i}?", "answer_a": f"One {i}.", "answer_b": f"Two {i}."}
        | {"human": rng.choice("ab")}
        for i in range(N_PAIRS)
    ]
    pl.DataFrame(rows).write_csv(folder / "pairs.csv")
    truth = folder / "truth.json"
    study_file = folder / "planted.toml"
    study_file.write_text(STUDY.format(truth=truth))
    study = load_study(study_file)
    pairs = pairs_table(study, Settings(data_dir=folder / "scratch"))
    plan = build_plan(study, pairs, load_scales()).with_columns(split_item(pl.col("item_id")))
    human = dict(pairs.select("pair_id", "preferred").rows())
    better = {
        json.loads(msgs)[-1]["content"]: "A" if first == human[pair] else "B"
        for msgs, first, pair in plan.select("messages", "shown_first", "pair_id").rows()
    }
    truth.write_text(json.dumps(better))
    return study_file


def test_planted_position_bias_is_recovered_and_a_fair_judge_is_not_flagged(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    out = judgelab(data, "run", str(write_study(tmp_path)))
    assert "tbl_pairwise_position" in out and "bias_pp" in out
    rows = warehouse.query(
        Settings(data_dir=data),
        "select judge, n_calls, n_failed, position_bias, bias_lo, bias_hi, p_holm, flagged, "
        "consistency from stg_pairwise_position",
    )
    got = {r["judge"]: r for r in rows.rows(named=True)}
    biased, fair = got["biased"], got["fair"]
    assert biased["n_calls"] == fair["n_calls"] == 2 * N_PAIRS
    assert biased["n_failed"] == fair["n_failed"] == 0
    assert biased["bias_lo"] <= 0.15 <= biased["bias_hi"] and biased["bias_lo"] > 0
    assert biased["flagged"] and biased["p_holm"] < 0.001
    assert fair["bias_lo"] <= 0 <= fair["bias_hi"] and not fair["flagged"]
    # the plant costs consistency: a forced first-position win flips the pair in one order
    assert biased["consistency"] < fair["consistency"]
    agreement = warehouse.query(
        Settings(data_dir=data),
        "select judge, preferred_win_rate, human_accuracy from stg_pairwise_agreement",
    )
    # the fair judge follows the truth except for coin flips: 0.8 + 0.2/2 of its answers
    fair_rate = dict(agreement.select("judge", "preferred_win_rate").rows())["fair"]
    assert abs(fair_rate - 0.9) < 0.04
