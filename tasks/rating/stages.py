"""A rating study's stages after judging, as Prefect tasks: scores on 1–7, metrics against the
humans, judge–judge agreement, variance components and ensembles."""

from __future__ import annotations

import polars as pl
from prefect import task

from judgelab.settings import Settings
from judgelab.study import Study
from schemas.plan import DESIGN_COLUMNS
from schemas.scores import with_readout
from tasks import corrected, warehouse
from tasks.benchmarks.labelfile import study_labels
from tasks.judging import store
from tasks.judging.scales import load_scales
from tasks.rating import (
    agreement,
    baselines,
    ensembles,
    human_ceiling,
    rescale,
    thresholds,
    variance,
)
from tasks.rating.item_scores import item_scores
from tasks.rating.metrics import rating_metrics


def _sampled_items(study: Study, settings: Settings) -> pl.DataFrame:
    """The items this study's plan judges (the benchmark sample)."""
    ids = warehouse.read_table(settings, "plan", study.name, ["item_id"]).unique()
    items = warehouse.read_table(settings, "items", study.items_part)
    return items.join(ids, on="item_id", how="semi")


@task(name="score")
def rescale_stage(study: Study, settings: Settings) -> int:
    """Judge answers (newest per key) and baseline classifier scores, all on 1–7: `scores`."""
    plan = warehouse.read_table(settings, "plan", study.name, DESIGN_COLUMNS)
    readouts = study.analysis.readouts
    judgments = store.latest_rows(settings.store_dir, ["key", "status", "score", "probs"])
    items = _sampled_items(study, settings)
    parts = [rescale.rescale_scores(plan, judgments, items, load_scales(), readouts)]
    parts += [baselines.baseline_scores(study.name, study.task, b, items) for b in study.baselines]
    scores = pl.concat(parts)
    warehouse.write_table(settings, scores, "scores", study.name)
    notes = baselines.baseline_table(study.name, study.task, study.baselines, study.benchmark)
    warehouse.write_table(settings, notes, "baselines", study.name)
    return scores.height


@task(name="analyze")
def analyze_stage(study: Study, settings: Settings) -> int:
    """Per-design metrics against humans with CIs, the human ceiling, threshold shares."""
    a = study.analysis
    scores = warehouse.read_table(settings, "scores", study.name)
    per_item = item_scores(scores)
    metrics = rating_metrics(scores, n_boot=a.bootstrap, seed=a.seed, per_item=per_item)
    ceiling = human_ceiling.human_ceiling(
        study.name,
        warehouse.read_table(settings, "ratings", study.items_part),
        _sampled_items(study, settings),
        n_boot=a.bootstrap,
        seed=a.seed,
    )
    tables = {
        "item_scores": per_item,
        "rating_metrics": metrics,
        "human_ceiling": ceiling,
        "threshold_shares": thresholds.threshold_shares(metrics, a.outlier_scale),
        "corrected": _corrected(study, settings, per_item),
    }
    for name, frame in tables.items():
        warehouse.write_table(settings, frame, name, study.name)
    return metrics.height


def _corrected(study: Study, settings: Settings, per_item: pl.DataFrame) -> pl.DataFrame:
    """Judge-corrected means on 1–7 (tbl_corrected), each readout a design of its own: no
    rows without a labelled subset."""
    a = study.analysis
    per_item = with_readout(per_item)
    values = per_item.select(
        *corrected.DESIGN[:-2],
        pl.lit(None, pl.String).alias("reasoning_effort"),
        "readout",
        "item_id",
        pl.col("score_1to7").alias("value"),
    )
    key = per_item.select("item_id", pl.col("human_1to7").alias("human")).unique("item_id")
    known = _sampled_items(study, settings)["item_id"] if a.human_labels else key["item_id"]
    given = study_labels(a.human_labels, a.label_share, a.seed, key, known, "rating")
    if given is None:
        return corrected.corrected(
            values.clear(), key.clear().rename({"human": "label"}), "share", False
        )
    labels, source, answer_key = given
    return corrected.corrected(
        values, labels, source, binary=False, n_boot=a.bootstrap, seed=a.seed, answer_key=answer_key
    )


@task(name="agreement")
def agreement_stage(study: Study, settings: Settings) -> int:
    """Judge-vs-judge pairs (design-choice impact), variance components (type I and the
    G-study's), the D-study and ensembles."""
    a = study.analysis
    per_item = warehouse.read_table(settings, "item_scores", study.name)
    # the readout is a design choice like the others: a factor of the decomposition
    # (variance.rating_factors), held fixed where an ensemble strategy holds the design
    per_item = with_readout(per_item)
    tables = {
        "design_pairs": agreement.design_pairs(
            per_item, meaningful=a.meaningful_diff, margin=a.margin()
        ),
        **variance.tables(per_item),  # variance_components (both methods) and d_study
        "ensembles": ensembles.ensembles(
            per_item,
            max_ensembles=a.max_ensembles,
            seed=a.seed,
            baselines=a.ensemble_baselines,
            distinct=a.ensemble_distinct,
            outlier_scale=a.outlier_scale,
        ),
        "ensemble_holdout": ensembles.ensemble_holdout(
            per_item,
            max_ensembles=a.max_ensembles,
            seed=a.seed,
            baselines=a.ensemble_baselines,
            distinct=a.ensemble_distinct,
        ),
    }
    for name, frame in tables.items():
        warehouse.write_table(settings, frame, name, study.name)
    return tables["design_pairs"].height


AFTER_JUDGING = (rescale_stage, analyze_stage, agreement_stage)
