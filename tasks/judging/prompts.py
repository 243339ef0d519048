"""Render versioned prompt templates (prompts/<task>/<level>.v<N>.txt) into chat messages."""

from __future__ import annotations

import string
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from judgelab.names import confined
from judgelab.settings import PROJECT_ROOT
from tasks.judging.scales import Scale

PROMPTS_DIR = PROJECT_ROOT / "prompts"


@dataclass(frozen=True)
class Template:
    task: str
    level: str
    version: str
    text: str


def task_dirs(roots: list[Path] | None = None) -> dict[str, Path]:
    """Each task's prompt folder by name (a folder with a task.toml): prompts/<task>/, then a
    type package's tasks/<type>/prompts/<task>/ (`roots`: those folders only). A task name
    found twice is an error, so no folder silently shadows another."""
    from tasks.study_types import package_paths

    found: dict[str, Path] = {}
    for root in [PROMPTS_DIR, *package_paths("prompts")] if roots is None else roots:
        for config in sorted(root.glob("*/task.toml")):
            task = config.parent.name
            if task in found:
                raise ValueError(f"task {task!r} has two prompt folders: {found[task]}, {root}")
            found[task] = config.parent
    return found


def task_root(task: str, root: Path | None = None) -> Path:
    """The folder holding `task`'s prompt folder (`root` when given; prompts/ when no folder
    has the task, so the caller's message names the usual place)."""
    if root is not None:
        return root
    folder = task_dirs().get(task)
    return PROMPTS_DIR if folder is None else folder.parent


@cache
def task_config(task: str, root: Path | None = None) -> dict:
    return tomllib.loads(confined(task_root(task, root), task, "task.toml").read_text())


def load_template(task: str, level: str, version: str = "v1", root: Path | None = None) -> Template:
    root = task_root(task, root)
    path = confined(root, task, f"{level}.{version}.txt")
    if not path.is_file():
        known = sorted(p.name for p in (root / task).glob("*.txt"))
        raise FileNotFoundError(f"no prompt template {path}; templates for {task!r}: {known}")
    return Template(task=task, level=level, version=version, text=path.read_text())


def render_verdict_system(template: Template, scale: Scale) -> str:
    """Fill a verdict-task template: worked examples are question, candidate answer, verdict."""
    from tasks.benchmarks.qa import qa_text

    cfg = task_config(template.task)
    examples = [
        f'{qa_text(e["question"], e["answer"])}\nAnswer: {{"{scale.field}": "{e["verdict"]}"}}'
        for e in cfg.get("examples", [])
        if template.level in e["levels"]
    ]
    return string.Template(template.text).substitute(examples="\n\n".join(examples)).strip()


def render_rubric_system(template: Template, scale: Scale) -> str:
    """Fill an evaluator template: the genre, its criteria with their meaning, the answer."""
    cfg = task_config(template.task)
    missing = set(scale.criteria) ^ set(cfg["criteria"])
    if missing:
        raise ValueError(
            f"prompts/{template.task}/task.toml and scale {scale.name!r} name different "
            f"criteria: {sorted(missing)}"
        )
    return (
        string.Template(template.text)
        .substitute(
            genre=cfg["genre"],
            criteria="\n".join(f"- {c}: {cfg['criteria'][c]}" for c in scale.criteria),
            criterion_max=scale.criterion_max,
            min=scale.fmt(scale.min),
            max=scale.fmt(scale.max),
            answer_hint=scale.answer_hint(),
        )
        .strip()
    )


def render_system(template: Template, scale: Scale) -> str:
    """Fill the template for one scale; worked examples are shown on that scale."""
    if scale.criteria:
        return render_rubric_system(template, scale)
    if scale.categories:
        return render_verdict_system(template, scale)
    cfg = task_config(template.task)
    examples = [
        f'Text: "{e["text"]}"\nAnswer: {{"score": {scale.fmt(scale.from_unit(e["position"]))}}}'
        for e in cfg.get("examples", [])
        if template.level in e["levels"]
    ]
    return (
        string.Template(template.text)
        .substitute(
            min=scale.fmt(scale.min),
            max=scale.fmt(scale.max),
            mid=scale.fmt(scale.mid),
            low_label=cfg["low_label"],
            mid_label=cfg["mid_label"],
            high_label=cfg["high_label"],
            examples="\n\n".join(examples),
        )
        .strip()
    )


def messages(system: str, text: str, quote: bool = True) -> list[dict]:
    """System prompt plus the item: a rated text is quoted; a question–answer item arrives
    already rendered (`quote=False`)."""
    return [system_turn(system), user_turn(text, quote)]


def system_turn(system: str) -> dict:
    return {"role": "system", "content": system}


def user_turn(text: str, quote: bool = True) -> dict:
    return {"role": "user", "content": f'Text: "{text}"' if quote else text}
