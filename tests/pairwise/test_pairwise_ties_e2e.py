"""End to end: a user's pairs file whose human labels include `tie` (as FairEval's and MT-Bench's
do), judged through `judgelab plan` and `judgelab run` by a planted fake judge that answers
each pair in each order as planted. The agreement table counts as MT-Bench does: a judge tie
(the order-combined verdict) agrees with a human tie, and "w/o tie" keeps only the pairs where
neither says tie; the accuracy counts (LLMBar's) leave the human ties out."""

from __future__ import annotations

import json
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

STUDY = """
[study]
name = "tied-pairs"
type = "pairwise"
task = "pairwise"
benchmark = "file"
sample_size = 0
prompt_levels = ["base"]
scales = ["winner"]

[study.pairs]
path = "pairs.csv"
id_column = "id"
preference_column = "human"

[[judges]]
name = "planted"
model = "fake/planted"
extra = {{ truth = "{truth}", first_bias = 0.0, noise = 0.0 }}
"""
# (pair, human label as written, the judge's winner with a shown first, with b shown first)
PAIRS = [
    ("t1", "a", "a", "a"),  # combined a = a: agrees with and without ties
    ("t2", "B", "b", "b"),  # combined b = b: agrees with and without ties
    ("t3", "tie", "tie", "tie"),  # combined tie = human tie: agrees with ties only
    ("t4", "TIE", "a", "b"),  # the orders disagree → combined tie = human tie: agrees
    ("t5", " Tie", "a", "a"),  # combined a ≠ human tie: disagrees; out without ties
    ("t6", "a", "tie", "tie"),  # combined tie ≠ a: disagrees; out without ties
    ("t7", "a", "b", "b"),  # combined b ≠ a: disagrees with and without ties
    ("t8", "", "a", "a"),  # no label
]


def write_study(folder: Path) -> Path:
    """The pairs file, the study, and the truth file telling the fake judge, per message, the
    position it answers (the planted winner seen through the order shown)."""
    rows = [
        {"id": p, "question": f"Question {p}?", "answer_a": f"One {p}.", "answer_b": f"Two {p}."}
        | {"human": label}
        for p, label, _, _ in PAIRS
    ]
    pl.DataFrame(rows).write_csv(folder / "pairs.csv")
    truth, study_file = folder / "truth.json", folder / "tied.toml"
    study_file.write_text(STUDY.format(truth=truth))
    study = load_study(study_file)
    pairs = pairs_table(study, Settings(data_dir=folder / "scratch"))
    plan = build_plan(study, pairs, load_scales()).with_columns(split_item(pl.col("item_id")))
    winners = {f"pairs:{p}": {"a": ab, "b": ba} for p, _, ab, ba in PAIRS}
    answers = {}
    for msgs, first, pair in plan.select("messages", "shown_first", "pair_id").rows():
        winner = winners[pair][first]
        answers[json.loads(msgs)[-1]["content"]] = (
            "tie" if winner == "tie" else "A" if winner == first else "B"
        )
    truth.write_text(json.dumps(answers))
    return study_file


def test_human_ties_run_end_to_end_with_mt_bench_agreement(tmp_path: Path) -> None:
    data, study = tmp_path / "data", str(write_study(tmp_path))
    planned = judgelab(data, "plan", study)
    assert "8 pairs, 7 with a human label (3 of them a tie); each judged in both orders" in planned
    out = judgelab(data, "run", study)
    assert "tbl_pairwise_agreement" in out and "human_acc_decisive_pct" in out
    settings = Settings(data_dir=data)
    (row,) = warehouse.query(settings, "select * from tbl_pairwise_agreement").rows(named=True)
    assert (row["n_labelled_units"], row["n_human_ties"], row["n_combined_ties"]) == (7, 3, 3)
    assert row["n_agree"] == 4 and row["human_acc_pct"] == 57.1  # t1 t2 t3 t4 of 7: w/ tie
    assert row["n_untied_units"] == 3 and row["human_acc_decisive_pct"] == 66.7  # t1 t2 t7
    # t1 t2 t7 (t6 ties): 6 decisive calls on pairs with a preferred answer, 4 name it
    assert (row["n_labelled_calls"], row["preferred_win_pct"]) == (6, 66.7)
    (llmbar,) = warehouse.query(
        settings, "select n_units, correct_ab, correct_ba from stg_pairwise_order_accuracy"
    ).rows()
    assert llmbar == (4, 2, 2)  # t1 t2 t6 t7: the human ties have no preferred answer
