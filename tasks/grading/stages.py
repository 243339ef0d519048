"""A grading study's stages after judging, as Prefect tasks: grades beside labels, then the rating
metrics of each design against the labels."""

from __future__ import annotations

from prefect import task

from judgelab.settings import Settings
from judgelab.study import Study
from schemas.plan import DESIGN_COLUMNS
from tasks import warehouse
from tasks.grading.grades import grade_scores
from tasks.judging import store
from tasks.judging.scales import load_scales
from tasks.rating.metrics import rating_metrics


@task(name="grades")
def grade_stage(study: Study, settings: Settings) -> int:
    """Stored answers of a grading study → `grading_scores` (grade and label on 1–7)."""
    plan = warehouse.read_table(settings, "plan", study.name, DESIGN_COLUMNS)
    judgments = store.latest_rows(settings.store_dir, ["key", "status", "score", "probs"])
    items = warehouse.read_table(settings, "grading_items", study.items_part)
    scores = grade_scores(plan, judgments, items, load_scales(), study.analysis.readouts)
    warehouse.write_table(settings, scores, "grading_scores", study.name)
    return scores.height


@task(name="grading-analysis")
def grading_stage(study: Study, settings: Settings) -> int:
    """Each design's grades against the labels: `grading_metrics`."""
    a = study.analysis
    scores = warehouse.read_table(settings, "grading_scores", study.name)
    metrics = rating_metrics(scores, n_boot=a.bootstrap, seed=a.seed)
    warehouse.write_table(settings, metrics, "grading_metrics", study.name)
    return metrics.height


AFTER_JUDGING = (grade_stage, grading_stage)
