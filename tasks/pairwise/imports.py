"""Imported pairwise judgments (`[[imports]]`, tasks/imports/) in the plan's terms: the item
id `<pair_id>#<order>` and the winner scale's score, the position index (A 0, B 1, tie 2).

A labelled answer names the winning answer (`a`, `b` or `tie`, answer space) and becomes a
position through the order it was shown in; raw judge text names a position itself (`{"winner":
"A"}` as judges answer here) and goes through the scale's parser, as a stored call would."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from tasks.imports.mapping import fail
from tasks.judging.parse import OK, UNPARSEABLE, parse_score
from tasks.judging.scales import Scale
from tasks.pairwise.plan import ORDERS

if TYPE_CHECKING:
    from judgelab.study import Study

WINNERS = ("a", "b", "tie")
ITEMS = ("pairs", "pair_id")  # the table of the study's items and its id column


def item_ids(study: Study) -> set[str] | None:
    """The pair ids of the study's own pairs file (None for a built-in benchmark: its pairs
    are known once loaded, and the import stage checks against them)."""
    if study.pairs is None:
        return None
    from tasks.benchmarks import pairfile

    return set(pairfile.load(study.pairs)["pair_id"])


def plan_answers(rows: pl.DataFrame, scale: Scale) -> pl.DataFrame:
    """`rows` (tasks/imports/mapping.COLUMNS) with `item_id`, `status` and `score`."""
    order = pl.col("order")
    bad = rows.filter(order.is_null() | ~order.is_in(ORDERS))
    if bad.height:
        fail(
            bad,
            bad["_order_field"][0],
            f"order {bad['order'][0]!r} is neither 'ab' (answer a shown first) nor 'ba' "
            "(map the file's values with labels)",
        )
    labelled = ~pl.col("parsed")
    # a labelled answer without a value was declared missing = "unparsed": a failed call
    unread = labelled & pl.col("answer").is_null()
    bad = rows.filter(labelled & pl.col("answer").is_not_null() & ~pl.col("answer").is_in(WINNERS))
    if bad.height:
        fail(
            bad,
            bad["_answer_field"][0],
            f"answer {bad['answer'][0]!r} is not a, b or tie (map the file's values with labels)",
        )
    # answer a is at position A when shown first ("ab"), at B otherwise; category i of the
    # winner scale (A, B, tie) is stored as score i, as analysis.POSITIONS reads it
    positions = [c.upper() for c in scale.categories]
    first = pl.col("answer") == pl.when(order == "ab").then(pl.lit("a")).otherwise(pl.lit("b"))
    position = (
        pl.when(pl.col("answer") == "tie")
        .then(positions.index("TIE"))
        .when(first)
        .then(positions.index("A"))
        .otherwise(positions.index("B"))
    )
    parsed = (
        [
            parse_score(raw, scale) if p else (OK, None)
            for raw, p in rows.select("answer", "parsed").iter_rows()
        ]
        if rows["parsed"].any()
        else [(OK, None)] * rows.height
    )
    return rows.with_columns(
        # plan.item_id(pair_id, order), for every row at once
        pl.concat_str(pl.col("item"), pl.lit("#"), order).alias("item_id"),
        pl.when(unread)
        .then(pl.lit(UNPARSEABLE))
        .otherwise(pl.Series([s for s, _ in parsed], dtype=pl.String))
        .alias("status"),
        pl.when(unread)
        .then(None)
        .when(labelled)
        .then(position.cast(pl.Float64))
        .otherwise(pl.Series([v for _, v in parsed], dtype=pl.Float64))
        .alias("score"),
    )
