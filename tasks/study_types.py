"""The study types. One record per type (`tasks/<type>/study_type.py`, a `STUDY_TYPE`) says
everything the shared code needs to run, re-parse, print, report, plan and watch a study of
that type; the study flow, the CLI, the report, reparse, the run ledger and the canary read it
(`StudyType.named`, `StudyType.every`), and no other module compares a study's type with a
name. Adding a type is a package and one record.

Records are light: `judgelab` commands import them at start-up, so a record's callables import
their stages when called, and a path "module:attribute" is imported when it is used
(`StudyType.load`). One study flow (flows/study.py) runs every type from its record: each judge
round (plan → judge → `then`), the canary, the stages after judging, costs, the ending; reparse
runs the same stages after re-parsing."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from judgelab.settings import Settings
    from judgelab.study import Study

# the study types: packages tasks/<type>/ with a study_type.py
TYPES = ("rating", "accuracy", "tone", "pairwise", "grading")
TASKS_DIR = Path(__file__).parent


Counts = dict[str, dict[str, int]]  # per judge: planned / stored / missing calls


@dataclass(frozen=True)
class Round:
    """One round of judge calls in a study run: plan it, judge its missing calls, then `then`.
    `plan(study, settings, run_id)` loads what it needs and returns (counts, notes); `part`
    names its plan part (None: the study's); `then(study, settings)` runs after its calls
    (again after a re-parse) and returns entries for the run's summary (tone: `checked`)."""

    plan: Callable[[Study, Settings, str], tuple[Counts, list[str]]]
    part: Callable[[Study], str] | None = None
    then: Callable[[Study, Settings], dict | None] | None = None


@dataclass(frozen=True)
class StudyType:
    name: str
    flow_name: str  # the study flow's name in the UI and deployments: "rating-study"
    rounds: tuple[Round, ...]  # the judge rounds, in order
    # (study, settings) → None: the stages after judging, in order (run and reparse alike)
    after_judging: Callable[[Study, Settings], None]
    main_view: str  # the table `judgelab run` prints and the report's drill-down opens
    artifact_views: tuple[str, ...]  # shown as table artifacts on the flow run in the UI
    report_views: tuple[str, ...]  # `judgelab tables` lists them under this type, main first
    metric_source: str  # the table whose numbers tbl_changes compares run to run
    report: str  # module with the report parts: TITLE, INTRO, SCALE_NOTE, PANELS, DRILL, ...
    data_table: str  # the study-file table of a user's own data ([study.<data_table>])
    checks: str  # "module:function" (study) → None: raises ValueError on a misfit study
    # module with the type's stage functions the shared code calls: preview(study, settings)
    # → (counts, notes, plan, lines) for `judgelab plan`; and, for types planned by the shared
    # stages, load_items(study, settings) → n and plan_items(study, settings) → items
    stages: str
    quote_items: bool = False  # a plan message quotes the item's text (rated texts)
    rewrites: bool = False  # the study has a [rewriter] (an LLM that rewrites its texts)
    # "module:function" (study, settings, answers) → the canary's answers with a `value`
    # column that tasks/drift.py compares as `drift_statistic`; None: no [study.canary]
    canary: str | None = None
    drift_statistic: str | None = None  # "mean_shift" (a score) | "flip_rate" (a category)
    power: str | None = None  # "module:function" of the power planner; None: not covered
    power_note: str = ""  # why the planner does not cover this type
    percent: bool = False  # differences are fractions (accuracy), margins in percentage points
    # module reading imported judgments in the type's terms (tasks/imports/): ITEMS (the items
    # table and its id column), item_ids(study) → a user file's ids, plan_answers(rows, scale)
    # → rows with their plan `item_id`, `status` and `score`; None: the type takes no imports
    imports: str | None = None
    # "module:function" (settings, studies) → {study: Headline} (tasks/report/panel.py): what a
    # study's tables say, computed once: its `top` (at most three numbers) opens the report
    # page, its `full` opens the type's section and is printed by `judgelab run`; None: none
    headline: str | None = None
    # the columns naming a row of `metric_source` and its numbers worth comparing between runs
    # (the run ledger's snapshot, tasks/runs.py; "what changed since the last run")
    snapshot: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    # "module:function" (template, scale) → the system prompt; None: the shared renderer,
    # which chooses by the scale's shape (tasks/judging/prompts.py render_system)
    render_system: str | None = None
    # the type's scores read a call as its parsed answer or its expected score over the stored
    # distribution ([study.analysis] readouts); False: verdicts and winners, whose
    # probabilities are the calibration tables' (tbl_calibration), not a second score
    readouts: bool = False

    def load(self, field: str) -> Any:
        """The object a dotted-path field names, imported now."""
        module, _, attr = getattr(self, field).partition(":")
        target = importlib.import_module(module)
        return getattr(target, attr) if attr else target

    @staticmethod
    def named(name: str) -> StudyType:
        """The record of study type `name` (tasks/<name>/study_type.py)."""
        return _named(name)

    @staticmethod
    def every() -> list[StudyType]:
        """Every type's record, in TYPES order (the order of report sections and listings)."""
        return [_named(name) for name in TYPES]


@cache
def _named(name: str) -> StudyType:
    if name not in TYPES:
        raise ValueError(f"unknown study type {name!r}; known: {', '.join(TYPES)}")
    return importlib.import_module(f"tasks.{name}.study_type").STUDY_TYPE


def package_paths(name: str) -> list[Path]:
    """`tasks/<type>/<name>` of each type package that has it, in TYPES order: the SQL views
    (`sql/`), table schemas (`schemas/`), prompt folders (`prompts/`) and scales
    (`scales.toml`) a type keeps beside its code. The shared readers of those (the warehouse,
    the prompt and scale loaders) look here after the project's own folders."""
    return [TASKS_DIR / t / name for t in TYPES if (TASKS_DIR / t / name).exists()]


def in_order(module: str) -> Callable[[Study, Settings], None]:
    """`after_judging` running the Prefect tasks `module` lists in AFTER_JUDGING, in order
    (imported when the run gets there)."""

    def run(study: Study, settings: Settings) -> None:
        for stage in importlib.import_module(module).AFTER_JUDGING:
            stage(study, settings)

    return run
