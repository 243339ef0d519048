"""The grading task's system prompt: the shared renderer knows rated texts, verdicts and rubrics;
a grading example shows a question, a reference and a candidate with its grade."""

from __future__ import annotations

import string

from tasks.grading.items import grading_text
from tasks.judging.prompts import Template, task_config
from tasks.judging.scales import Scale


def render_system(template: Template, scale: Scale) -> str:
    """Fill a grading template: the scale's ends with the task's anchor words, and the worked
    examples of this level, graded on `scale`."""
    cfg = task_config(template.task)
    examples = [
        f"{grading_text(e['question'], e['reference'], e['answer'])}\n"
        f'Answer: {{"score": {scale.fmt(e["grade"])}}}'
        for e in cfg.get("examples", [])
        if template.level in e["levels"]
    ]
    return (
        string.Template(template.text)
        .substitute(
            min=scale.fmt(scale.min),
            max=scale.fmt(scale.max),
            low_label=cfg["low_label"],
            high_label=cfg["high_label"],
            examples="\n\n".join(examples),
        )
        .strip()
    )
