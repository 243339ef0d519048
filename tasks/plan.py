"""Expand a study into its plan: one row per (design, item, repeat) with its call key."""

from __future__ import annotations

import polars as pl

from judgelab.study import Study
from schemas.plan import Plan
from schemas.validate import validate
from tasks.judging import prompts
from tasks.judging.efforts import effort_designs
from tasks.judging.keys import call_key, canonical_json, request_params
from tasks.judging.scales import Scale


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


def build_plan(study: Study, items: pl.DataFrame, scales: dict[str, Scale]) -> pl.DataFrame:
    """One row per judge × reasoning effort × prompt level × scale × item × repeat."""
    quote = study.type == "rating"  # a rated text is quoted; a QA item arrives rendered
    rows = []
    for configured in study.judges:
        for effort, judge in effort_designs(configured, study.reasoning_efforts):
            for level in study.prompt_levels:
                template = prompts.load_template(study.task, level, study.prompt_version)
                for scale_name in study.scales:
                    scale = scales[scale_name]
                    system = prompts.render_system(template, scale)
                    params = request_params(judge, scale)
                    params_json = canonical_json(params)
                    for item_id, text in items.select("item_id", "text").iter_rows():
                        msgs = prompts.messages(system, text, quote=quote)
                        msgs_json = canonical_json(msgs)
                        for repeat in range(study.repeats):
                            rows.append(
                                (
                                    call_key(judge.model, msgs, scale, params, repeat),
                                    study.name,
                                    judge.name,
                                    judge.model,
                                    study.task,
                                    level,
                                    study.prompt_version,
                                    scale_name,
                                    effort,
                                    item_id,
                                    repeat,
                                    msgs_json,
                                    params_json,
                                )
                            )
    cols = list(Plan.to_schema().columns)
    plan = pl.DataFrame(rows, schema=cols, orient="row").with_columns(
        pl.col("repeat").cast(pl.Int64)
    )
    return validate(plan, Plan)
