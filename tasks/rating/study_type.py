"""The rating study type: judge scores on a scale, against human ratings (tasks/study_types.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tasks.rounds import load_and_plan
from tasks.study_types import Round, StudyType, in_order

if TYPE_CHECKING:
    import polars as pl

    from judgelab.settings import Settings
    from judgelab.study import Study

STUDY_TYPE = StudyType(
    name="rating",
    flow_name="rating-study",
    rounds=(Round(plan=load_and_plan),),
    after_judging=in_order("tasks.rating.stages"),
    main_view="tbl_rating_performance",
    artifact_views=("tbl_rating_performance", "tbl_judge_ranking", "tbl_ensemble_size"),
    report_views=(
        "tbl_rating_performance",
        "tbl_judge_ranking",
        "tbl_human_ceiling",
        "tbl_corrected",
        "tbl_bias_summary",
        "tbl_threshold_shares",
        "tbl_outlier_scale",
        "tbl_design_impact_single",
        "tbl_design_impact_all_pairs",
        "tbl_judge_agreement",
        "tbl_variance_components",
        "tbl_d_study",
        "tbl_ensembles",
        "tbl_ensemble_size",
        "tbl_ensemble_holdout",
    ),
    metric_source="rating_metrics",
    snapshot=(
        ("kind", "judge", "prompt_level", "scale"),
        ("n_items", "bias", "mae", "kripp_alpha", "parse_failure_rate"),
    ),
    report="tasks.rating.report",
    readouts=True,
    headline="tasks.rating.report:headlines",
    data_table="data",
    checks="tasks.rating.study_type:check",
    stages="tasks.rating.study_type",
    quote_items=True,
    canary="tasks.rating.study_type:canary_values",
    drift_statistic="mean_shift",
    power="tasks.rating.power:RATING",
)


def check(study: Study) -> None:
    """A rating study rates texts on numeric scales; a judge's effort is part of the judge."""
    if study.benchmark in ("truthfulqa", "ukpconvarg1", "hhrlhf", "llmbar"):
        raise ValueError(f"benchmark {study.benchmark!r} is not a rating benchmark")
    from tasks.judging.scales import load_scales

    scales = load_scales()
    named = [s for s in study.scales if s in scales and scales[s].categories]
    if named:
        raise ValueError(f"a rating study rates on numeric scales, not {', '.join(named)}")
    if study.reasoning_efforts is not None:
        raise ValueError(
            "reasoning_efforts is an accuracy-study factor; in a rating study set "
            "reasoning_effort on the judge (a judge is a model plus its parameters)"
        )
    if study.baselines:  # tasks.rating.baselines loads pandera: only when a study names one
        from tasks.rating.baselines import get_baseline  # a wrong name fails at load

        for name in study.baselines:
            get_baseline(name, study.task)


def load_items(study: Study, settings: Settings) -> int:
    """The benchmark's texts and human ratings (`items`, `ratings`); a user's file is written
    a chunk of texts at a time (ratingfile.read)."""
    from tasks import benchmarks, warehouse
    from tasks.benchmarks import ratingfile

    if study.data is not None:
        chunks, ratings = ratingfile.read(study.data)
    else:
        items, ratings = benchmarks.builtin(study, settings)
        chunks = [items]
    n = warehouse.write_chunks(settings, chunks, "items", study.items_part)
    warehouse.write_table(settings, ratings, "ratings", study.items_part)
    return n


def plan_items(study: Study, settings: Settings) -> pl.DataFrame:
    """The seeded, stratified sample of texts the plan judges: drawn on ids and domains, the
    texts read for the sample only (a large file's other texts stay on disk)."""
    from tasks import warehouse
    from tasks.plan import sample_items

    keys = warehouse.read_table(settings, "items", study.items_part, ["item_id", "domain"])
    sample = sample_items(keys, study.sample_size, study.seed)
    if sample.height == keys.height:
        return warehouse.read_table(settings, "items", study.items_part).sort("item_id")
    chosen = warehouse.read_rows(settings, "items", study.items_part, "item_id", sample["item_id"])
    return chosen.sort("item_id")


def preview(study: Study, settings: Settings) -> tuple:
    """`judgelab plan`: load the benchmark and plan the study (no calls)."""
    from tasks import planning, warehouse

    planning.load_benchmark(study, settings)
    counts, notes = planning.make_plan(study, settings)
    return counts, notes, warehouse.read_table(settings, "plan", study.name), []


def canary_values(study: Study, settings: Settings, answers: pl.DataFrame) -> pl.DataFrame:
    """Canary answers with `value`, the score on 1–7 (tasks/drift.py compares mean shifts)."""
    import polars as pl

    from tasks.judging.scales import load_scales
    from tasks.rating.rescale import linear

    ranges = pl.DataFrame(
        [(n, s.min, s.max) for n, s in load_scales().items()],
        schema=["scale", "lo", "hi"],
        orient="row",
    )
    values = answers.join(ranges, on="scale", how="left").with_columns(
        linear(pl.col("score"), pl.col("lo"), pl.col("hi")).alias("value")
    )
    return values
