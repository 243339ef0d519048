"""Loading and planning a study without Prefect: the bodies of the load-benchmark and plan
stages (tasks/stages.py wraps them as Prefect tasks), which `judgelab plan` calls directly.

Apart from tasks/stages.py because importing that module imports Prefect, litellm (through
the judge stage) and the statistics libraries: about 170 MB and several seconds that a plan,
which makes no call and computes no statistic, does not need."""

from __future__ import annotations

import polars as pl

from judgelab.settings import Settings
from judgelab.study import Study, StudyError
from tasks import warehouse
from tasks.judging import endpoints, keys, store
from tasks.judging.cache import call_counts
from tasks.judging.scales import load_scales
from tasks.plan import build_plan
from tasks.study_types import StudyType


def load_benchmark(study: Study, settings: Settings) -> int:
    """Fetch (checksum-verified) and load what the study judges: the study type's
    `load_items` (rating: `items` and `ratings`; accuracy: the sampled pairs, `qa_items`)."""
    return StudyType.named(study.type).load("stages").load_items(study, settings)


def make_plan(study: Study, settings: Settings) -> tuple[dict[str, dict[str, int]], list[str]]:
    """Expand the study into its plan (written as `plan`); planned / stored / missing calls
    per judge and one line per judge whose stored answers came through another endpoint."""
    scales = load_scales()
    unknown = sorted(set(study.scales) - set(scales))
    if unknown:
        raise StudyError(f"unknown scale(s) {unknown}; known scales: {sorted(scales)}")
    items = StudyType.named(study.type).load("stages").plan_items(study, settings)
    plan = build_plan(study, items, scales)
    warehouse.write_table(settings, plan, "plan", study.name)
    store.ensure_store(settings.store_dir)
    notes = endpoint_lines(study, settings, plan)
    return call_counts(plan, store.done_keys(settings.store_dir)), notes


def endpoint_lines(study: Study, settings: Settings, plan: pl.DataFrame) -> list[str]:
    """One line per judge whose planned calls have answers from another endpoint
    (tasks.judging.endpoints; reads four store columns)."""
    stored = store.latest_rows(settings.store_dir, ["key", "base_key", "endpoint", "status"])
    judges = [j for j in [*study.judges, study.rewriter] if j is not None]
    mine = {j.name: keys.endpoint(j) for j in judges}
    return endpoints.foreign_lines(endpoints.foreign_answers(plan, stored, mine), study.name)
