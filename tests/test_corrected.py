"""tbl_corrected: the per-design table (tasks/corrected.py) from planted judges, the human_labels
file's checks, the study fields, and the published view."""

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from filestudy import write_study

from judgelab.settings import Settings
from judgelab.study import StudyError, load_study
from schemas.validate import TableError
from tasks import ppi, warehouse
from tasks.benchmarks.labelfile import read_labels, study_labels
from tasks.corrected import DESIGN, corrected, share_of_items


def _design(judge: str, item_ids: list[str], values: np.ndarray, **names) -> pl.DataFrame:
    base = dict(study="s", kind="judge", judge=judge, model=f"m/{judge}", prompt_level="base")
    base |= dict(scale="likert7", reasoning_effort=None, readout="answer") | names
    return pl.DataFrame(
        {**{c: [base[c]] * len(item_ids) for c in DESIGN}, "item_id": item_ids, "value": values},
        schema={**dict.fromkeys(DESIGN, pl.String), "item_id": pl.String, "value": pl.Float64},
    )


def _rating_study(n=2000, seed=0):
    rng = np.random.default_rng(seed)
    ids = [f"i{k:05d}" for k in range(n)]
    human = np.clip(rng.normal(4, 1.2, n), 1, 7)
    biased = np.clip(human + 0.8 + rng.normal(0, 0.6, n), 1, 7)  # tracks the humans, +0.8
    unrelated = np.clip(rng.normal(5, 1, n), 1, 7)  # says nothing about them
    values = pl.concat([_design("biased", ids, biased), _design("noise", ids, unrelated)])
    key = pl.DataFrame({"item_id": ids, "human": human})
    return values, key, human, biased


def test_rating_rows_correct_the_bias_and_say_what_the_labels_are_worth():
    values, key, human, biased = _rating_study()
    labels, source, answer_key = study_labels(None, 0.1, 3, key, key["item_id"], "rating")
    assert (source, labels.height) == ("share", 200)
    table = corrected(values, labels, source, binary=False, n_boot=0, answer_key=answer_key)
    rows = {r["judge"]: r for r in table.iter_rows(named=True)}
    b = rows["biased"]
    assert (b["n_items"], b["n_labelled"]) == (2000, 200)
    assert b["human_all"] == pytest.approx(human.mean())
    # the judge alone misses the humans by its bias; PPI covers them and is narrower than
    # the labels alone
    assert not b["judge_lo"] <= human.mean() <= b["judge_hi"]
    assert b["ppi_lo"] <= human.mean() <= b["ppi_hi"]
    assert b["width_ratio"] > 1.3
    assert b["effective_labels"] == pytest.approx(200 * b["width_ratio"] ** 2)
    # the row's numbers are tasks.ppi's on the same split
    chosen = labels["item_id"].to_list()
    mask = np.isin(key["item_id"].to_numpy(), chosen)
    ci, lam = ppi.ppi_mean_ci(human[mask], biased[mask], biased[~mask])
    assert (b["ppi_lo"], b["ppi_hi"], b["ppi_lambda"]) == pytest.approx((ci.lo, ci.hi, lam))
    assert b["resid_sd"] == pytest.approx(np.std(human[mask] - biased[mask], ddof=1))
    # an unrelated judge is weighted near 0: about as wide as the labels alone
    n = rows["noise"]
    assert n["ppi_lambda"] < 0.2 and 0.9 < n["width_ratio"] < 1.1
    assert n["rg_rate"] is None  # ratings have no Rogan–Gladen rate


def test_verdict_rows_add_rogan_gladen():
    rng = np.random.default_rng(1)
    n = 3000
    ids = [f"q{k}" for k in range(n)]
    truth = (rng.random(n) < 0.3).astype(float)
    lenient = np.where(truth == 1, rng.random(n) < 0.9, rng.random(n) < 0.4).astype(float)
    values = _design("lenient", ids, lenient, scale="verdict", reasoning_effort="n/a")
    key = pl.DataFrame({"item_id": ids, "human": truth})
    labels, source, answer_key = study_labels(None, 0.1, 0, key, key["item_id"], "verdict")
    (row,) = corrected(values, labels, source, True, 500, 0, answer_key).iter_rows(named=True)
    lab = np.isin(ids, labels["item_id"].to_list())
    assert row["sensitivity"] == pytest.approx(lenient[lab & (truth == 1)].mean())
    assert row["specificity"] == pytest.approx(1 - lenient[lab & (truth == 0)].mean())
    assert row["judge_mean"] == pytest.approx(lenient.mean())  # ~0.55: far from 0.3
    assert row["rg_lo"] <= truth.mean() <= row["rg_hi"]
    assert row["ppi_lo"] <= truth.mean() <= row["ppi_hi"]
    assert not row["judge_lo"] <= truth.mean() <= row["judge_hi"]
    expected = ppi.rogan_gladen(lenient.mean(), row["sensitivity"], row["specificity"])
    assert row["rg_rate"] == pytest.approx(expected)


def test_share_is_seeded_and_order_free():
    ids = pl.Series([f"x{k}" for k in range(100)])
    a = share_of_items(ids, 0.2, 7)
    assert a.len() == 20
    assert share_of_items(ids.reverse(), 0.2, 7).to_list() == a.to_list()
    assert share_of_items(ids, 0.2, 8).to_list() != a.to_list()
    assert share_of_items(ids, 0.001, 7).len() == 2  # never fewer than two labels


def test_label_file_reads_ratings_and_verdicts(tmp_path: Path):
    f = tmp_path / "labels.csv"
    f.write_text("item_id,label\na,6.5\nb, 1\n")
    got = read_labels(f, "rating", pl.Series(["a", "b", "c"]))
    assert got.rows() == [("a", 6.5), ("b", 1.0)]
    f.write_text("item_id,label\na,TRUE\nb,0\n")
    assert read_labels(f, "verdict").rows() == [("a", 1.0), ("b", 0.0)]


def test_label_file_problems_name_file_line_and_column(tmp_path: Path):
    f = tmp_path / "labels.csv"
    f.write_text("item_id,label\na,9\n,3\nb,x\na,2\nzz,4\nc,\n")
    with pytest.raises(TableError) as err:
        read_labels(f, "rating", pl.Series(["a", "b", "c"]))
    msg = str(err.value)
    assert (
        "labels.csv line 2, column 'label': '9' is not a number on the common scale [1, 7]" in msg
    )
    assert "labels.csv line 3, column 'item_id': empty item id" in msg
    assert "labels.csv line 4, column 'label': 'x' is not a number" in msg
    assert "labels.csv line 2, line 5, column 'item_id': item 'a' is labelled more than once" in msg
    assert "labels.csv line 6, column 'item_id': 'zz' is not an item of the study" in msg
    assert "labels.csv line 7, column 'label': empty label" in msg
    f.write_text("item_id,label\na,maybe\n")
    with pytest.raises(TableError, match="line 2, column 'label': 'maybe' is not true/false"):
        read_labels(f, "verdict")
    f.write_text("item_id,score\na,1\n")
    with pytest.raises(TableError, match="missing column"):
        read_labels(f, "rating")


def _study(tmp_path: Path, analysis: str) -> Path:
    path = write_study(tmp_path)
    path.write_text(
        path.read_text().replace("[[judges]]", f"[study.analysis]\n{analysis}\n\n[[judges]]")
    )
    return path


def test_study_fields(tmp_path: Path):
    s = load_study(_study(tmp_path, 'human_labels = "sub/labels.csv"'))
    assert s.analysis.human_labels == str(tmp_path / "sub" / "labels.csv")
    assert load_study(_study(tmp_path, "label_share = 0.25")).analysis.label_share == 0.25
    with pytest.raises(StudyError, match="human_labels or label_share, not both"):
        load_study(_study(tmp_path, 'label_share = 0.1\nhuman_labels = "x.csv"'))
    with pytest.raises(StudyError, match="label_share"):
        load_study(_study(tmp_path, "label_share = 1.5"))


def test_view_adds_labels_saved(settings: Settings):
    values, key, _, _ = _rating_study(n=400)
    labels, source, answer_key = study_labels(None, 0.25, 0, key, key["item_id"], "rating")
    table = corrected(values, labels, source, False, 0, 0, answer_key)
    warehouse.write_table(settings, table, "corrected", "s")
    warehouse.publish_views(settings)
    got = warehouse.query(
        settings, "select judge, n_labelled, effective_labels, labels_saved from tbl_corrected"
    )
    assert got["judge"].to_list() == ["biased", "noise"]
    for r in got.iter_rows(named=True):
        assert r["labels_saved"] == pytest.approx(r["effective_labels"] - r["n_labelled"], abs=1)


def test_accuracy_stage_uses_resolved_verdicts_and_reference_labels(tmp_path: Path):
    from accuracy.test_accuracy import AB

    from judgelab.study import Analysis
    from tasks.accuracy.stages import _corrected

    study = load_study(Path("studies/accuracy.toml"))
    assert _corrected(study, AB).height == 0  # no labelled subset, no rows
    study = study.model_copy(update={"analysis": Analysis(label_share=0.5, bootstrap=50)})
    rows = {r["judge"]: r for r in _corrected(study, AB).iter_rows(named=True)}
    # ja resolves 9 of the 10 items with a reference (i09 is a 1–0 tie: unresolved, i10
    # failed) plus the 2 without one; labels are drawn from the 10 items with a reference
    assert rows["ja"]["n_items"] == 10 and rows["jb"]["n_items"] == 12
    assert rows["jb"]["n_labelled"] == 5 and rows["ja"]["n_labelled"] <= 5
    assert rows["jb"]["judge_mean"] == pytest.approx(5 / 12)
    assert rows["jb"]["human_all"] == pytest.approx(5 / 10)  # the reference of its items
    assert {r["scale"] for r in rows.values()} == {"verdict"}
    # a file: ids are checked against the study's items
    f = tmp_path / "l.csv"
    f.write_text("item_id,label\ni01,true\ni05,false\ni99,true\n")
    study = study.model_copy(update={"analysis": Analysis(human_labels=str(f))})
    with pytest.raises(TableError, match="'i99' is not an item of the study"):
        _corrected(study, AB)
    f.write_text("item_id,label\ni01,true\ni05,false\ni02,true\n")
    rows = {r["judge"]: r for r in _corrected(study, AB).iter_rows(named=True)}
    assert rows["jb"]["n_labelled"] == 3 and rows["jb"]["label_source"] == "file"
    assert rows["jb"]["human_all"] is None


def test_rating_stage_rows_from_item_scores(tmp_path: Path, settings: Settings):
    from judgelab.study import Analysis
    from tasks.rating.stages import _corrected

    values, key, human, biased = _rating_study(n=300)
    per_item = (
        values.filter(pl.col("judge") == "biased")
        .join(key, on="item_id")
        .select(
            "study", "kind", "judge", "model", "prompt_level", "scale", "item_id",
            pl.lit(1).alias("n_ok"), pl.col("value").alias("score_1to7"),
            pl.lit(None, pl.Float64).alias("score_sd"), pl.col("human").alias("human_1to7"),
        )
    )  # fmt: skip
    study = load_study(write_study(tmp_path))
    assert _corrected(study, settings, per_item).height == 0
    study = study.model_copy(update={"analysis": Analysis(label_share=0.2, seed=5)})
    (row,) = _corrected(study, settings, per_item).iter_rows(named=True)
    assert (row["n_items"], row["n_labelled"], row["reasoning_effort"]) == (300, 60, None)
    assert row["judge_mean"] == pytest.approx(biased.mean())
    assert row["human_all"] == pytest.approx(human.mean())
    assert row["readout"] == "answer"  # item_scores from before readouts: the parsed answer

    # read two ways (readouts = ["answer", "expected"]): each readout corrected on its own,
    # on the same labelled items
    expected = per_item.with_columns(pl.col("score_1to7") - 0.5, readout=pl.lit("expected"))
    both = pl.concat([per_item.with_columns(readout=pl.lit("answer")), expected])
    rows = {r["readout"]: r for r in _corrected(study, settings, both).iter_rows(named=True)}
    assert rows["answer"] == row
    assert rows["expected"]["judge_mean"] == pytest.approx(biased.mean() - 0.5)
    assert rows["expected"]["n_labelled"] == 60
    assert rows["expected"]["ppi_mean"] == pytest.approx(rows["answer"]["ppi_mean"], abs=0.05)


def test_label_planner_uses_each_design_s_own_spreads():
    from tasks.power_plan import label_line, label_needs

    values, key, _, _ = _rating_study(n=2000)
    labels, source, answer_key = study_labels(None, 0.05, 0, key, key["item_id"], "rating")
    table = corrected(values, labels, source, False, 0, 0, answer_key)
    needs = label_needs(table, 0.1, 999, 0.8, 1.2)
    assert needs["judge"].to_list() == ["biased", "noise"]
    for r, c in zip(needs.iter_rows(named=True), table.iter_rows(named=True), strict=True):
        assert (r["n_items"], r["resid_sd"]) == (2000, c["resid_sd"])
        sds = (c["judge_sd"], c["resid_sd"], c["human_sd"])
        assert r["n_labels"] == ppi.n_labels_for_halfwidth(0.1, 2000, *sds)
    # the judge that tracks the humans needs far fewer labels than the one that does not,
    # which needs about what the labels alone do: (z·sd/0.1)²
    assert needs["n_labels"][0] < 0.5 * needs["n_labels"][1]
    alone = (ppi.Z * table["human_sd"][1] / 0.1) ** 2
    assert needs["n_labels"][1] == pytest.approx(alone, rel=0.05)
    assert "median" in label_line(needs, 0.1)
    (assumed,) = label_needs(None, 0.1, 2000, 0.8, 1.2).rows(named=True)
    assert assumed["n_labels"] == ppi.n_labels_for_halfwidth(0.1, 2000, 1.2, 0.8)
    assert "out of reach" in label_line(label_needs(None, 0.01, 2000, 0.8, 1.2), 0.01)


def test_report_figure_draws_each_estimate_once_per_design(settings: Settings):
    from report.layout import legends_over_data, overlapping_labels

    from tasks.report.figures import corrected as draw

    values, key, _, _ = _rating_study(n=300)
    labels, source, answer_key = study_labels(None, 0.2, 0, key, key["item_id"], "rating")
    warehouse.write_table(
        settings, corrected(values, labels, source, False, 0, 0, answer_key), "corrected", "s"
    )
    warehouse.publish_views(settings)
    frame = warehouse.query(settings, "select * from tbl_corrected")
    fig = draw(frame)
    (ax,) = fig.axes
    # judge alone, PPI and labels alone for two designs (no Rogan–Gladen for ratings)
    assert len(ax.containers) == 3 and all(len(c[0].get_xdata()) == 2 for c in ax.containers)
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert sorted(legend) == ["answer key", "judge + labels (PPI)", "judge alone", "labels alone"]
    assert legends_over_data(fig) == [] and overlapping_labels(fig) == []
    assert draw(frame.clear()) is None


def test_only_types_that_report_tbl_corrected_take_labels(tmp_path: Path):
    text = Path("studies/pairwise.toml").read_text()
    assert "[study.analysis]" not in text
    path = tmp_path / "pairwise.toml"
    path.write_text(
        text.replace("[[judges]]", "[study.analysis]\nlabel_share = 0.1\n\n[[judges]]", 1)
    )
    with pytest.raises(StudyError, match="a pairwise study has no judge-corrected estimates"):
        load_study(path)
