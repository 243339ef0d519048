"""Readouts: one stored call read as its parsed answer and as its expected score Σ p·v, each a
design of its own in every rating table, at no extra call."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from judgelab.settings import Settings
from judgelab.study import Analysis
from schemas.plan import DESIGN_COLUMNS
from tasks import warehouse
from tasks.judging import store
from tasks.judging.scales import load_scales
from tasks.rating.agreement import design_pairs
from tasks.rating.item_scores import item_scores
from tasks.rating.metrics import rating_metrics
from tasks.rating.rescale import rescale_scores
from tasks.rating.thresholds import threshold_shares

SCALES = load_scales()
KEYS = [f"{i:064d}" for i in range(4)]


def _plan() -> pl.DataFrame:
    rows = [
        (KEYS[0], "likert7", "a"),
        (KEYS[1], "likert7", "b"),
        (KEYS[2], "bipolar3", "a"),
        (KEYS[3], "bipolar3", "b"),
    ]
    return pl.DataFrame(
        [
            (k, "s", "j", "m", "t", "base", "v1", sc, "default", item, 0, "[]", "{}")
            for k, sc, item in rows
        ],
        schema=[*DESIGN_COLUMNS, "messages", "params"],
        orient="row",
    )


ITEMS = pl.DataFrame(
    {
        "item_id": ["a", "b"],
        "human_mean": [2.0, 6.0],
        "human_min": [1.0] * 2,
        "human_max": [7.0] * 2,
    }
)
P_A = {"1": 0.1, "2": 0.6, "3": 0.3}  # a likert7 call's distribution (the rest of the grid: 0)
P_B3 = {"-1": 0.5, "2": 0.25, "3": 0.25}  # a bipolar3 call's


def _judgments() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "key": KEYS,
            "status": ["ok", "ok", "ok", "unparseable"],
            "score": [2.0, 6.0, -1.0, None],
            "probs": [json.dumps(P_A), None, json.dumps(P_B3), None],  # b on likert7: an old row
        }
    )


def test_the_expected_readout_is_the_probability_weighted_score() -> None:
    out = rescale_scores(_plan(), _judgments(), ITEMS, SCALES, ["answer", "expected"])
    assert out.height == 8  # every planned call under each readout
    answer = out.filter(readout="answer").sort("key")
    assert answer["score"].to_list() == [2.0, 6.0, -1.0, None]
    exp = out.filter(readout="expected").sort("key")
    e_a = 0.1 * 1 + 0.6 * 2 + 0.3 * 3
    e_b3 = 0.5 * -1 + 0.25 * 2 + 0.25 * 3
    assert exp["score"][0] == pytest.approx(e_a)
    assert exp["score"][2] == pytest.approx(e_b3)
    assert exp["score_1to7"][2] == pytest.approx(1 + 6 * (e_b3 + 3) / 6)  # −3..3 onto 1–7
    # an ok call stored without a distribution has nothing to read: missing, not failed; a
    # failed parse stays failed under every readout
    assert exp["status"].to_list() == ["ok", "missing", "ok", "unparseable"]
    assert exp["score"][1] is None and exp["score"][3] is None
    only = rescale_scores(_plan(), _judgments().drop("probs"), ITEMS, SCALES)
    assert only.sort("key").equals(answer)  # the default reads the answer alone, as before


def test_readout_is_a_design_in_metrics_and_pairs() -> None:
    scores = rescale_scores(_plan(), _judgments(), ITEMS, SCALES, ["answer", "expected"])
    metrics = rating_metrics(scores, n_boot=0)
    assert metrics.height == 4  # 2 scales × 2 readouts
    assert sorted(metrics["readout"].unique()) == ["answer", "expected"]
    row = metrics.filter(scale="likert7", readout="expected").row(0, named=True)
    assert (row["n_items"], row["n_planned"]) == (1, 2)
    assert row["bias"] == pytest.approx((0.1 * 1 + 0.6 * 2 + 0.3 * 3) - 2.0)
    shares = threshold_shares(metrics, None).filter(grouping="readout")
    assert sorted(shares["group"]) == ["answer", "expected"]
    assert set(shares["n_designs"]) == {2}
    one = rating_metrics(scores.filter(readout="answer"), n_boot=0)
    assert threshold_shares(one, None).filter(grouping="readout").is_empty()
    pairs = design_pairs(item_scores(scores))
    readout_only = pairs.filter(differs="readout")
    assert readout_only.height == 2  # per scale, answer vs expected
    assert set(readout_only["n_differ"]) == {1}


def test_readouts_are_listed_once() -> None:
    assert Analysis().readouts == ["answer"]
    with pytest.raises(ValueError, match="twice"):
        Analysis(readouts=["answer", "answer"])
    with pytest.raises(ValueError):
        Analysis(readouts=["mode"])


STUDY = """[study]
name = "readouts"
task = "sentiment"
benchmark = "file"
sample_size = 0
prompt_levels = ["base"]
scales = ["likert7", "bipolar3"]

[study.data]
path = "items.csv"
id_column = "id"
text_column = "sentence"
mean_column = "valence"
scale_min = 1
scale_max = 5

[study.analysis]
bootstrap = 0
readouts = {readouts}

[[judges]]
name = "a"
model = "fake/probs"
max_tokens = 16
"""
CSV = "id,sentence,valence\n1,good,4\n2,bad,1\n3,fine,3\n4,great,5\n5,awful,1\n6,okay,3\n"


@pytest.mark.slow
def test_readouts_double_the_designs_with_no_extra_call(tmp_path: Path) -> None:
    from test_flow_e2e import judgelab

    (tmp_path / "items.csv").write_text(CSV)
    study, data = tmp_path / "readouts.toml", tmp_path / "data"
    settings = Settings(data_dir=data)
    tables = {}
    stored = []
    for readouts in (["answer"], ["answer", "expected"]):
        study.write_text(STUDY.replace("{readouts}", json.dumps(readouts)))
        judgelab(data, "run", str(study))
        stored.append(store.read_store(settings.store_dir).height)
        tables[len(readouts)] = warehouse.read_table(settings, "rating_metrics", "readouts")
    assert stored[0] == 12 and stored[1] == stored[0]  # 6 items × 2 scales, then no new call
    one, two = tables[1], tables[2]
    assert two.height == 2 * one.height == 4
    # the answer designs do not move; only the multiplicity adjustment, whose family (the
    # study's designs) doubled
    adjusted = ["readout", "p_holm", "p_bh"]
    answer = two.filter(readout="answer").drop(adjusted).sort("scale")
    assert answer.equals(one.drop(adjusted).sort("scale"))
    expected = two.filter(readout="expected")
    assert (expected["n_items"] == 6).all()
    assert not expected["mae"].equals(answer["mae"])  # read from the planted distributions
    # the readout is a design factor downstream too: the decomposition's components, the
    # D-study's 1–2 readouts averaged, the ensembles' model_free pool of both readings
    components = warehouse.read_table(settings, "variance_components", "readouts")
    type1 = components.filter(method="type1_anova")
    assert {"readout", "scale:readout"} <= set(type1["component"])
    assert "readout" in set(components.filter(method="random_ems")["component"])
    d = warehouse.read_table(settings, "d_study", "readouts")
    assert sorted(d["n_readouts"].unique()) == [1, 2]
    singles = warehouse.read_table(settings, "ensembles", "readouts")
    assert singles.filter(strategy="model_free", size=1)["n_possible"].item() == 4


@pytest.mark.parametrize(
    ("study", "said"),
    [
        ("studies/pairwise.toml", "tbl_calibration instead"),
        ("studies/accuracy.toml", "tbl_calibration instead"),
        ("studies/tone.toml", "one way"),
    ],
)
def test_a_type_without_a_second_readout_refuses_one(tmp_path: Path, study: str, said: str):
    """Verdicts, winners and tone scores are read one way: a second readout is refused, not
    ignored (a verdict's P(TRUE) is calibrated instead)."""
    from judgelab.study import StudyError, load_study

    text = Path(study).read_text()
    assert "[study.analysis]" not in text or "readouts" not in text
    path = tmp_path / Path(study).name
    table = '[study.analysis]\nreadouts = ["answer", "expected"]\n'
    if "[study.analysis]" in text:
        path.write_text(text.replace("[study.analysis]\n", table, 1))
    else:
        path.write_text(text.replace("[[judges]]", table + "\n[[judges]]", 1))
    with pytest.raises(StudyError, match=said):
        load_study(path)
    path.write_text(Path(study).read_text())
    load_study(path)  # the study as shipped loads
