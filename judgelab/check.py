"""The checks of a study that need its files (prompt templates, the user's data file) but no
network and no Prefect: run at load, so a mistake costs seconds, before anything is written."""

from __future__ import annotations

from pathlib import Path

from judgelab.study import Study
from judgelab.study_toml import StudyError, locate, study_text, suggest
from schemas.validate import TableError


def check_study(
    path: str | Path, study: Study, keep: bool = False, imports: bool = True
) -> list[str]:
    """Raise StudyError (study file, with its line) or TableError (data file, with its line,
    row and column) on the first kind of problem found; every message is one line. Returns
    notes: things that run but may not be what the user meant. `keep`: a rating file's
    checked rows stay for the load that follows in this process (read once). `imports`: check
    the `[[imports]]` files too (False: the caller does, once a run may write: checking a
    source's files fetches them into data/raw)."""
    path = Path(path)
    text = study_text(path)
    check_prompts(path, text, study)
    check_truth(path, text, study)
    n_items = check_data(study, keep)
    if imports:
        check_imports(study)
    if n_items is not None and study.sample_size > n_items:
        return [
            f"{path}: sample_size = {study.sample_size} is more than the data file's "
            f"{n_items} items: the study uses all {n_items}"
        ]
    return []


def check_prompts(path: Path, text: str, study: Study, root: Path | None = None) -> None:
    """The task is a folder of prompts/ and each level has a template of the study's version."""
    from tasks.judging.prompts import PROMPTS_DIR, task_dirs

    folders = task_dirs(None if root is None else [root])
    tasks = sorted(folders)
    if study.task not in tasks:
        raise StudyError(
            f"{path}: line {locate(text, ('task',))}, task: unknown task {study.task!r}: "
            f"{suggest(study.task, tasks)}known tasks are {', '.join(tasks)} (folders of "
            f"{root or PROMPTS_DIR})"
        )
    folder = folders[study.task]
    templates = [p.name.removesuffix(".txt").rsplit(".", 1) for p in folder.glob("*.*.txt")]
    versions: dict[str, list[str]] = {}
    for level, version in templates:
        versions.setdefault(level, []).append(version)
    levels = sorted(versions)
    for level in study.prompt_levels:
        if level not in versions:
            raise StudyError(
                f"{path}: line {locate(text, ('prompt_levels',))}, prompt_levels: unknown "
                f"prompt level {level!r} for task {study.task!r}: {suggest(level, levels)}"
                f"levels are {', '.join(levels)} ({folder})"
            )
        if study.prompt_version not in versions[level]:
            raise StudyError(
                f"{path}: line {locate(text, ('prompt_version',))}, prompt_version: no template "
                f"{folder / f'{level}.{study.prompt_version}.txt'}; versions of {level!r}: "
                f"{', '.join(sorted(versions[level]))}"
            )


def check_truth(path: Path, text: str, study: Study) -> None:
    """`truth = "reference"` grades designs against labels: a QA file must name its column."""
    spec = study.qa_data
    if spec is None or study.analysis.truth != "reference" or spec.reference_column:
        return
    raise StudyError(
        f'{path}: line {locate(text, ("qa_data",))}, qa_data: truth = "reference" grades '
        "against reference labels and this file has none: set reference_column, or "
        'truth = "consensus" in [study.analysis]'
    )


def check_imports(study: Study) -> None:
    """Every `[[imports]]` file read, mapped and checked row by row (tasks/imports/), its
    items against the user's data file when the study has one; nothing is written. A
    source's files are fetched (checksum-verified) into data/raw first."""
    if not study.imports:
        return
    from judgelab.settings import Settings
    from tasks.imports.load import imported
    from tasks.study_types import StudyType

    try:
        imported(study, Settings(), StudyType.named(study.type).load("imports").item_ids(study))
    except TableError as exc:
        raise TableError("; ".join(line.strip() for line in str(exc).splitlines())) from None


def check_data(study: Study, keep: bool = False) -> int | None:
    """The user's data file read and checked row by row through its loader (nothing written);
    its number of items (distinct ids, else rows), None for a built-in benchmark."""
    frame = None
    try:
        if study.data is not None:
            from tasks.benchmarks import ratingfile

            frame = ratingfile.read_checked(study.data, keep)
        elif study.qa_data is not None:
            from tasks.benchmarks import qafile

            frame = qafile.read_checked(study.qa_data)
            spec = study.qa_data
            if study.analysis.truth == "reference" and not qafile.labelled(frame):
                raise TableError(
                    f"{spec.path}, column {spec.reference_column!r}: no row holds a reference "
                    'label, and truth = "reference" grades against them'
                )
        elif study.texts is not None:
            from tasks.benchmarks.tonetexts import load_text_file

            t = study.texts
            frame = load_text_file(
                t.path, t.id_column, t.text_column, t.score_column, t.domain_column
            )
        elif study.pairs is not None:
            from tasks.benchmarks import pairfile

            frame = pairfile.read_checked(study.pairs)
    except TableError as exc:
        raise TableError("; ".join(line.strip() for line in str(exc).splitlines())) from None
    if frame is None:
        return None
    ids = [c for c in ("id", "text_id") if c in frame.columns]  # loaders: "id"; tone: text_id
    return frame[ids[0]].n_unique() if ids else frame.height
