"""A pairwise study's calls: every pair in both orders, each order its own call, with repeats.

Order "ab" shows answer a first (as `Answer A`), order "ba" shows answer b first. The plan's
`item_id` is `<pair_id>#<order>`, so a winner by position maps back to the answer it names
(`split_item`); the two orders send different messages, hence have different keys."""

from __future__ import annotations

import polars as pl

from judgelab.study import Study
from tasks.judging import prompts as templates
from tasks.judging.efforts import effort_designs
from tasks.judging.keys import canonical_json, request_params
from tasks.judging.scales import Scale
from tasks.pairwise import prompts
from tasks.plan import plan_frame, plan_row

SCALE = "winner"
ORDERS = ("ab", "ba")  # which answer is shown first


def item_id(pair_id: str, order: str) -> str:
    return f"{pair_id}#{order}"


def split_item(item: pl.Expr) -> list[pl.Expr]:
    """`pair_id` and `shown_first` ("a" or "b") from a plan's item_id (a pair id may hold "#")."""
    return [
        item.str.replace(r"#(ab|ba)$", "").alias("pair_id"),
        item.str.extract(r"#(a|b)[ab]$", 1).alias("shown_first"),
    ]


def build_plan(study: Study, pairs: pl.DataFrame, scales: dict[str, Scale]) -> pl.DataFrame:
    """One row per judge × reasoning effort × prompt level × pair × order × repeat; repeat r
    sends the judge's seed + r (keys.repeat_seed), as in every study type."""
    scale = scales[SCALE]
    scale_json = canonical_json(scale.key_material())
    rows = []
    columns = ("pair_id", "context", "answer_a", "answer_b")
    for configured in study.judges:
        for effort, judge in effort_designs(configured, study.reasoning_efforts):
            params = [canonical_json(request_params(judge, scale, r)) for r in range(study.repeats)]
            for level in study.prompt_levels:
                template = templates.load_template(study.task, level, study.prompt_version)
                system = prompts.render_system(template, scale)
                for pair_id, context, a, b in pairs.select(columns).iter_rows():
                    for order, (first, second) in zip(ORDERS, [(a, b), (b, a)], strict=True):
                        msgs = prompts.messages(system, context, first, second)
                        rows += [
                            plan_row(
                                *(study, judge, effort, level, study.prompt_version, SCALE),
                                *(scale_json, item_id(pair_id, order), repeat),
                                *(canonical_json(msgs), params[repeat]),
                            )
                            for repeat in range(study.repeats)
                        ]
    return plan_frame(rows)
