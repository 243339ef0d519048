"""The pairwise judge's messages: a system prompt with worked examples, then the context and
the two answers in the order of the call."""

from __future__ import annotations

import string

from tasks.judging.prompts import Template, task_config
from tasks.judging.scales import Scale


def pair_text(context: str, first: str, second: str) -> str:
    """The user message: the context, then `Answer A` (shown first) and `Answer B`."""
    return f"Context:\n{context}\n\nAnswer A:\n{first}\n\nAnswer B:\n{second}"


def render_system(template: Template, scale: Scale) -> str:
    """Fill a pairwise template: each worked example is a pair and the winner's JSON answer."""
    cfg = task_config(template.task)
    examples = [
        f"{pair_text(e['context'], e['answer_a'], e['answer_b'])}\n"
        f'Answer: {{"{scale.field}": "{e["winner"]}"}}'
        for e in cfg.get("examples", [])
        if template.level in e["levels"]
    ]
    return string.Template(template.text).substitute(examples="\n\n".join(examples)).strip()


def messages(system: str, context: str, first: str, second: str) -> list[dict]:
    """System prompt plus one pair in one order (`first` is shown as Answer A)."""
    return [
        {"role": "system", "content": system},
        {"role": "user", "content": pair_text(context, first, second)},
    ]
