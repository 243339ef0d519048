"""Reasoning effort as a design factor: one design per effort a provider really offers."""

from __future__ import annotations

from judgelab.study import Judge
from tasks.judging.local_models import IN_PROCESS

DEFAULT = "default"  # no effort sent: the provider's default
NOT_APPLICABLE = "n/a"  # the provider has no such control; never faked as a level


def supports_reasoning(judge: Judge) -> bool:
    """The judge's own setting, else litellm's model map (unknown models: no control; an
    embedded model is not in it, and is answered without importing litellm)."""
    if judge.supports_reasoning is not None:
        return judge.supports_reasoning
    if judge.model.startswith(IN_PROCESS):
        return False
    import litellm

    litellm.suppress_debug_info = True
    try:
        return bool(litellm.supports_reasoning(model=judge.model))
    except Exception:  # litellm raises plain Exceptions for models missing from its map
        return False


def effort_designs(judge: Judge, efforts: list[str] | None) -> list[tuple[str, Judge]]:
    """(label, judge as sent) for each reasoning-effort design of `judge`.

    `efforts` None (rating studies, an accuracy study without the factor): the judge's own
    setting, one design ("n/a" when it sets none and has no control). Otherwise one design
    per effort ("default" sends none), or a single "n/a" design when the provider has no
    control, so a missing factor is recorded as missing rather than as identical levels.
    """
    if efforts is None:
        if judge.reasoning_effort is None and not supports_reasoning(judge):
            return [(NOT_APPLICABLE, judge)]
        return [(judge.reasoning_effort or DEFAULT, judge)]
    if not supports_reasoning(judge):
        return [(NOT_APPLICABLE, judge.model_copy(update={"reasoning_effort": None}))]
    return [
        (e, judge.model_copy(update={"reasoning_effort": None if e == DEFAULT else e}))
        for e in dict.fromkeys(efforts)
    ]
