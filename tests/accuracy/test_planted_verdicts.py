"""Simulation: fake verdict judges with planted behaviour run through the whole accuracy flow;
the tables recover each plant within a stated tolerance, and show none of it without plants.

Judges (all `fake/planted`: they answer TruthfulQA's reference label except where planted):
  lenient  accepts 30% of wrong answers              → FP rate 0.30 ± 0.07, leniency 100%
  strict   rejects 30% of right answers              → FN rate 0.30 ± 0.07, leniency 0%
  guesser  flips a coin on a fixed fifth of the items → errs on 10% ± 3.5% of its verdicts,
                                                        both ways, never on full-agreement items
Tolerance: the leniency rates pool ≥ 3 designs × ~150 items (sd ≈ 0.022), so ±0.07 is over
3 sd; the guesser's 180 coin flips give an error-rate sd of ≈ 0.008.
The guesser's plant speaks of designs ("never errs where every design agrees"), so the study
votes per design; the same verdicts voted per judge are checked against that consensus.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import polars as pl
import pytest
from conftest import mirror_dir
from test_flow_e2e import judgelab

from judgelab.settings import Settings
from judgelab.study import load_study
from tasks import benchmarks, warehouse
from tasks.accuracy.consensus import consensus

pytestmark = pytest.mark.slow

STUDY = """
[study]
name = "planted-verdicts"
type = "accuracy"
task = "accuracy"
benchmark = "truthfulqa"
sample_size = 300
share_correct = 0.5
seed = 5
prompt_levels = ["base", "short_icl", "long_icl"]
scales = ["verdict"]
reasoning_efforts = ["default", "low"]

[study.analysis]
consensus_votes = "design"

[[judges]]
name = "lenient"
model = "fake/planted"
concurrency = 32
supports_reasoning = true     # two effort designs per prompt level
extra = {{ truth = "{truth}", accept_wrong = {accept_wrong} }}

[[judges]]
name = "strict"
model = "fake/planted"
concurrency = 32
extra = {{ truth = "{truth}", reject_right = {reject_right} }}

[[judges]]
name = "guesser"
model = "fake/planted"
concurrency = 32
extra = {{ truth = "{truth}", {coin} }}
"""
PLANTS = {"accept_wrong": 0.3, "reject_right": 0.3, "coin": True}
REMOVED = {"accept_wrong": 0.0, "reject_right": 0.0, "coin": False}
TOLERANCE = 0.07


def run_study(tmp_path: Path, plants: dict) -> Settings:
    tmp_path.mkdir(parents=True, exist_ok=True)
    data = tmp_path / "data"
    settings = Settings(data_dir=data, data_mirror=mirror_dir())
    truth, coins, study_file = tmp_path / "truth.json", tmp_path / "coins.json", tmp_path / "s.toml"

    def write(p: dict) -> None:
        coin = f'coin_on = "{coins}"' if p["coin"] else "coin_on_nothing = true"
        rates = {k: v for k, v in p.items() if k != "coin"}
        study_file.write_text(STUDY.format(truth=truth, coin=coin, **rates))

    write(REMOVED)
    items = benchmarks.load_qa(load_study(study_file), settings)
    truth.write_text(json.dumps({t: float(r) for t, r in items.select("text", "reference").rows()}))
    texts = sorted(items["text"])
    coins.write_text(json.dumps(random.Random(1).sample(texts, len(texts) // 5)))
    write(plants)
    judgelab(data, "run", str(study_file))
    return settings


def recovered(settings: Settings) -> dict[str, bool]:
    m = warehouse.query(
        settings,
        "select judge, subset, sum(fp)::bigint as fp, sum(fn)::bigint as fn, "
        "sum(n_scored)::bigint as n, sum(accuracy * n_scored) / nullif(sum(n_scored), 0) as acc "
        "from stg_accuracy_metrics group by judge, subset",
    )
    labels = warehouse.query(
        settings,
        "select count(*) filter (where not reference) as w, count(*) as n from stg_consensus",
    ).row(0, named=True)
    n_wrong, n_right = labels["w"], labels["n"] - labels["w"]  # items
    row = {(j, s): r for j, s, *r in m.rows()}
    fp_l, fn_l, _, _ = row[("lenient", "all")]  # 6 designs: 3 prompt levels × 2 efforts
    fp_s, fn_s, _, _ = row[("strict", "all")]  # 3 designs
    guess_full = row[("guesser", "full")][3]
    fp_g, fn_g, n_g, _ = row[("guesser", "all")]
    return {
        "lenient accepts ~30% of wrong answers, and only errs that way": fn_l == 0
        and abs(fp_l / (6 * n_wrong) - 0.3) < TOLERANCE,
        "strict rejects ~30% of right answers, and only errs that way": fp_s == 0
        and abs(fn_s / (3 * n_right) - 0.3) < TOLERANCE,
        # a coin on a fifth of the items: errors on ~10% of verdicts, either way, never on
        # items every design agrees on
        "guesser errs on ~10%, both ways, never on full agreement": guess_full == 1.0
        and abs((fp_g + fn_g) / n_g - 0.1) < 0.035
        and 0.25 < fp_g / max(1, fp_g + fn_g) < 0.75,
    }


def test_planted_verdicts_are_recovered_and_vanish_without_plants(tmp_path: Path) -> None:
    planted = run_study(tmp_path / "planted", PLANTS)
    assert recovered(planted) == dict.fromkeys(recovered(planted), True)
    # leniency itself, per design, as the tables print it: 100% for lenient, 0% for strict
    lean = warehouse.query(
        planted,
        "select judge, min(leniency_pct) as lo, max(leniency_pct) as hi, count(*) as n "
        "from tbl_accuracy_by_design group by judge order by judge",
    )
    assert {j: (lo, hi, n) for j, lo, hi, n in lean.rows()}["lenient"] == (100.0, 100.0, 6)
    assert {j: (lo, hi, n) for j, lo, hi, n in lean.rows()}["strict"] == (0.0, 0.0, 3)
    efforts = warehouse.query(
        planted, "select distinct reasoning_effort from stg_accuracy_metrics order by 1"
    )
    assert efforts["reasoning_effort"].to_list() == ["default", "low", "n/a"]
    by_model_is_coarser(planted)

    removed = run_study(tmp_path / "removed", REMOVED)
    assert recovered(removed) == dict.fromkeys(recovered(removed), False)
    subsets = warehouse.query(
        removed, "select subset, n_items from tbl_consensus_subsets where subset = 'full'"
    )
    assert subsets["n_items"].to_list() == [300]  # every design agrees on every item


def by_model_is_coarser(settings: Settings) -> None:
    """Voting per judge instead of per design: lenient's six designs are one voter of three,
    and an item every design agrees on is one every judge agrees on."""
    verdicts = warehouse.read_table(settings, "verdicts", "planted-verdicts")
    design, model = consensus(verdicts, votes="design"), consensus(verdicts, votes="model")
    stored = warehouse.read_table(settings, "consensus", "planted-verdicts")
    assert stored.equals(design)  # the study's consensus_votes reached the stage
    assert design["n_voters"].max() == 12 and model["n_voters"].max() == 3
    full = design.filter(pl.col("subset") == "full")["item_id"].to_list()
    assert set(model.filter(pl.col("item_id").is_in(full))["subset"]) == {"full"}
    # the guesser's coins split its own designs, not the judges: more items are full per judge
    assert (model["subset"] == "full").sum() > len(full)
