"""Judge rounds that several study types share; their records name them. Light: the stages (and
Prefect) are imported when a round runs, and tasks/study_types.py does not import this module,
so the import graph has no cycle through the stages."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from judgelab.settings import Settings
    from judgelab.study import Study
    from tasks.study_types import Counts


def load_and_plan(study: Study, settings: Settings, run_id: str) -> tuple[Counts, list[str]]:
    """The judge round of a type the shared stages load and plan (tasks/stages.py): load the
    benchmark, plan its calls."""
    from tasks import stages

    stages.load_benchmark(study, settings)
    return stages.make_plan(study, settings)
