"""Expand a study into its plan: one row per (design, item, repeat) with its call key."""

from __future__ import annotations

import polars as pl

from judgelab.study import Judge, Study
from schemas.plan import Plan
from schemas.validate import validate
from tasks.judging import prompts
from tasks.judging.efforts import effort_designs
from tasks.judging.keys import canonical_json, endpoint, key_from_json, request_params
from tasks.judging.scales import Scale
from tasks.study_types import StudyType


def sample_items(
    items: pl.DataFrame, n: int, seed: int, id_column: str = "item_id"
) -> pl.DataFrame:
    """Seeded sample stratified by domain (equal shares, remainder to the first); 0 = all."""
    if n == 0 or n >= items.height:
        return items.sort(id_column)
    domains = sorted(items["domain"].unique().to_list())
    share, extra = divmod(n, len(domains))
    parts = []
    for i, domain in enumerate(domains):
        pool = items.filter(pl.col("domain") == domain).sort(id_column)
        k = min(pool.height, share + (1 if i < extra else 0))
        parts.append(pool.sample(k, seed=seed + i))
    return pl.concat(parts).sort(id_column)


def plan_row(
    study: Study,
    judge: Judge,
    effort: str,
    level: str,
    version: str,
    scale_name: str,
    scale_json: str,
    item_id: str,
    repeat: int,
    msgs_json: str,
    params_json: str,
    canary: str | None = None,
) -> tuple:
    """One plan row (columns in `Plan` order) with the key of the call that answers it: the
    judge's endpoint is part of it unless the study reuses answers across endpoints; a
    canary call's date bucket always is (tasks/canary.py). The scale, messages and params
    arrive encoded (keys.canonical_json), so a planner encodes a design's system prompt and
    params once, not once per item (1.8 s of a 60,000-call plan's 3 s, measured)."""
    model = canonical_json(judge.model)
    bucket = None if canary is None else canonical_json(canary)
    base_key = key_from_json(model, msgs_json, scale_json, params_json, repeat, None, bucket)
    at = None if study.reuse_across_endpoints else endpoint(judge)
    return (
        base_key
        if at is None
        else key_from_json(
            model, msgs_json, scale_json, params_json, repeat, canonical_json(at), bucket
        ),
        base_key,
        study.name,
        judge.name,
        judge.model,
        study.task,
        level,
        version,
        scale_name,
        effort,
        item_id,
        repeat,
        msgs_json,
        params_json,
    )


def plan_frame(rows: list[tuple]) -> pl.DataFrame:
    schema = {c: pl.Int64 if c == "repeat" else pl.String for c in Plan.to_schema().columns}
    return validate(pl.DataFrame(rows, schema=schema, orient="row"), Plan)


def build_plan(
    study: Study, items: pl.DataFrame, scales: dict[str, Scale], canary: str | None = None
) -> pl.DataFrame:
    """One row per judge × reasoning effort × prompt level × scale × item × repeat; repeat r
    sends the judge's seed + r (keys.repeat_seed), in every study type. `canary`: the date
    bucket every key carries (a canary batch)."""
    record = StudyType.named(study.type)
    quote = record.quote_items  # a rated text is quoted; a QA item arrives rendered
    render = record.load("render_system") if record.render_system else prompts.render_system
    users = [
        (item_id, canonical_json(prompts.user_turn(text, quote)))
        for item_id, text in items.select("item_id", "text").iter_rows()
    ]
    rows = []
    for configured in study.judges:
        for effort, judge in effort_designs(configured, study.reasoning_efforts):
            for level in study.prompt_levels:
                template = prompts.load_template(study.task, level, study.prompt_version)
                for scale_name in study.scales:
                    scale = scales[scale_name]
                    scale_json = canonical_json(scale.key_material())
                    system = render(template, scale)
                    system_json = canonical_json(prompts.system_turn(system))
                    params = [
                        canonical_json(request_params(judge, scale, r))
                        for r in range(study.repeats)
                    ]
                    for item_id, user in users:
                        msgs_json = f"[{system_json},{user}]"  # = canonical_json(messages(…))
                        rows += [
                            plan_row(
                                *(study, judge, effort, level, study.prompt_version, scale_name),
                                *(scale_json, item_id, repeat, msgs_json, params[repeat], canary),
                            )
                            for repeat in range(study.repeats)
                        ]
    return plan_frame(rows)
