"""The canary: a fixed, seeded subset of a study's items, judged again on purpose once per
date bucket by the judges it watches, so a model that changes behind its name is noticed.

Every key carries the bucket (keys.key_from_json's `canary`), so a rerun inside a bucket
makes no call and the first run of the next bucket makes exactly one fresh batch."""

from __future__ import annotations

import polars as pl

from judgelab.study import Study
from schemas.canary_plan import CanaryPlan
from schemas.validate import validate
from tasks.judging.scales import Scale
from tasks.plan import build_plan


def canary_items(items: pl.DataFrame, study: Study) -> pl.DataFrame:
    """`size` items of the study's sample, drawn with the canary's seed; the same in every
    bucket as long as the sample and the canary's size and seed are."""
    canary = study.canary
    pool = items.sort("item_id")
    if canary.size >= pool.height:
        return pool
    return pool.sample(canary.size, seed=canary.seed).sort("item_id")


def watched(study: Study) -> Study:
    """The study as the canary runs it: its watched judges, the canary's repeats."""
    names = study.canary.judges or [j.name for j in study.judges]
    judges = [j for j in study.judges if j.name in names]
    return study.model_copy(update={"judges": judges, "repeats": study.canary.repeats})


def canary_plan(
    study: Study, items: pl.DataFrame, scales: dict[str, Scale], bucket: str
) -> pl.DataFrame:
    """One bucket's canary calls: every design of each watched judge × canary item × repeat."""
    plan = build_plan(watched(study), canary_items(items, study), scales, canary=bucket)
    return validate(plan.with_columns(pl.lit(bucket).alias("bucket")), CanaryPlan)


def part(study: Study, bucket: str) -> str:
    """The canary plan's part of one study and bucket."""
    return f"{study.name}.canary.{bucket}"
