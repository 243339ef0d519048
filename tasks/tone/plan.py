"""The tone test's calls as plan rows: one LLM rewrite per text × axis × pole, then one
evaluation per judge × prompt level × scored version × repeat (each version in its own
call, never beside its twin)."""

from __future__ import annotations

import polars as pl

from judgelab.study import Study
from tasks.judging import prompts
from tasks.judging.efforts import effort_designs
from tasks.judging.keys import canonical_json, request_params
from tasks.judging.scales import REWRITE_SCALE, Scale
from tasks.plan import plan_frame, plan_row
from tasks.tone.axes import Axis, render_rewrite_prompt


def rewrite_plan(
    study: Study, texts: pl.DataFrame, axes: dict[str, Axis], scales: dict[str, Scale]
) -> pl.DataFrame:
    """One rewrite call per text × axis × pole by the study's LLM rewriter (prompt level
    `<axis>:<pole>`, prompt version = the axis file's version); empty without a rewriter. A
    pole that is the original (verbosity's `unpadded`) is not asked for: its version is the
    text itself (versions.as_written)."""
    if study.rewriter is None:
        return plan_frame([])
    scale = scales[REWRITE_SCALE]
    ((label, judge),) = effort_designs(study.rewriter, None)
    params = request_params(judge, scale)
    rows = []
    for name in study.tone.axes:
        axis = axes[name]
        for pole in axis.rewritten():
            for text_id, text in texts.select("text_id", "text").iter_rows():
                prompt = render_rewrite_prompt(axis, pole, text, study.tone.length_tolerance)
                msgs = [{"role": "user", "content": prompt}]
                rows.append(
                    plan_row(
                        study,
                        judge,
                        label,
                        f"{name}:{pole}",
                        axis.version,
                        REWRITE_SCALE,
                        canonical_json(scale.key_material()),
                        text_id,
                        0,
                        canonical_json(msgs),
                        canonical_json(params),
                    )
                )
    return plan_frame(rows)


def eval_plan(study: Study, versions: pl.DataFrame, scales: dict[str, Scale]) -> pl.DataFrame:
    """One call per judge × prompt level × scale × version × repeat. Repeats differ by
    their key and by their seed (keys.repeat_seed), so a sampling evaluator's run-to-run
    noise is measured rather than replayed."""
    rows = []
    for configured in study.judges:
        for label, judge in effort_designs(configured, None):
            for level in study.prompt_levels:
                template = prompts.load_template(study.task, level, study.prompt_version)
                for scale_name in study.scales:
                    scale = scales[scale_name]
                    scale_json = canonical_json(scale.key_material())
                    system = prompts.render_system(template, scale)
                    for version_id, text in versions.select("version_id", "text").iter_rows():
                        msgs = prompts.messages(system, text)
                        for repeat in range(study.repeats):
                            params = request_params(judge, scale, repeat)
                            rows.append(
                                plan_row(
                                    study,
                                    judge,
                                    label,
                                    level,
                                    study.prompt_version,
                                    scale_name,
                                    scale_json,
                                    version_id,
                                    repeat,
                                    canonical_json(msgs),
                                    canonical_json(params),
                                )
                            )
    return plan_frame(rows)
