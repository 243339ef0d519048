"""The test's own reading of LLMBar's judge verdicts (`evaluators/<evaluator>/<strategy>/
result.json`) → `pairwise_verdicts` rows: an oracle for what studies/llmbar.toml imports.

Each item's verdicts are in `results[-1]` (the authors' evaluate.py reads the last entry:
before it sit the Metrics/Reference strategies' auxiliary generations, and for Swap/Swap_CoT
the first round, whose disagreements a second, synthesizing round settles). `"swap = False"`
is order ab (output 1 = answer a shown first), `"swap = True"` order ba; each `winner` is
already mapped back to the original outputs: "1" = answer a, "2" = answer b, null = no pattern
matched (unparseable; the comparison prompts offer no tie).

The Rating strategies score each output alone (`score_1`, `score_2`). Imported the judgelab
way, the higher integer score wins, equal scores are a tie and a score that is not an integer
makes the verdict unparseable, the same in both orders. The authors' stored swap winners
differ from that only by `authors_rating_rule`: a tie goes to the answer shown second, an
unparseable score to the answer shown first.
"""

from __future__ import annotations

import polars as pl

from schemas.pairwise_verdicts import PairwiseVerdicts
from schemas.validate import validate
from tasks.benchmarks.llmbar import pair_id
from tasks.judging.parse import OK, UNPARSEABLE

SWAPS = {"ab": "swap = False", "ba": "swap = True"}
NAMES = {"1": "a", "2": "b", "tie": "tie"}  # the authors' winner → the answer it names
WINNERS = {"pair_id": pl.String, "order": pl.String, "label": pl.String}


def design(study: str, evaluator: str, strategy: str) -> dict[str, str]:
    """An evaluator × strategy as a judgelab design: the strategy is the prompt level."""
    judge = f"{evaluator}/{strategy}"
    return {"study": study, "judge": judge, "model": evaluator, "prompt_level": strategy} | {
        "reasoning_effort": "n/a"
    }


def is_rating(records: list[dict]) -> bool:
    """A Rating strategy's file: each output scored alone."""
    return bool(records) and "score_1" in records[0]["results"][-1]


def stored_winners(records: list[dict]) -> pl.DataFrame:
    """The winners as the authors stored them: pair id, order, "1" / "2" / null."""
    rows = [
        (pair_id(i), order, r["results"][-1][swap]["winner"])
        for i, r in enumerate(records)
        for order, swap in SWAPS.items()
    ]
    return pl.DataFrame(rows, schema=WINNERS, orient="row")


def _score(text: str) -> int | None:
    """The score as the authors read it (Python's `int` of the whole answer), else None."""
    try:
        return int(text)
    except (TypeError, ValueError):
        return None


def score_winners(records: list[dict]) -> pl.DataFrame:
    """A Rating strategy's winners the judgelab way: higher score wins, equal scores tie, a
    score that is not an integer leaves no winner; the same verdict in both orders."""
    rows = []
    for i, r in enumerate(records):
        last = r["results"][-1]
        s1, s2 = _score(last["score_1"][0]), _score(last["score_2"][0])
        label = None if s1 is None or s2 is None else "1" if s1 > s2 else "2" if s2 > s1 else "tie"
        rows += [(pair_id(i), order, label) for order in SWAPS]
    return pl.DataFrame(rows, schema=WINNERS, orient="row")


def import_winners(records: list[dict]) -> pl.DataFrame:
    """What judgelab imports: scores compared for a Rating strategy, else the stored winners."""
    return score_winners(records) if is_rating(records) else stored_winners(records)


def verdicts(winners: pl.DataFrame, pairs: pl.DataFrame, design: dict[str, str]) -> pl.DataFrame:
    """Winners (pair id, order, "1"/"2"/"tie"/null) → `pairwise_verdicts` for one design: a
    null or unknown label is an unparseable call with no winner; position follows from the
    winner and the answer shown first."""
    winner = pl.col("label").replace_strict(NAMES, default=None, return_dtype=pl.String)
    shown_first = pl.col("order").str.head(1)
    position = (
        pl.when(pl.col("winner") == "tie")
        .then(pl.lit("tie"))
        .when(pl.col("winner") == pl.col("shown_first"))
        .then(pl.lit("A"))
        .when(pl.col("winner").is_not_null())
        .then(pl.lit("B"))
    )
    out = (
        winners.join(pairs.select("pair_id", "preferred"), on="pair_id", how="left")
        .with_columns(winner.alias("winner"), shown_first.alias("shown_first"))
        .with_columns(
            *[pl.lit(v).alias(k) for k, v in design.items()],
            pl.lit(0, pl.Int64).alias("repeat"),
            pl.when(pl.col("winner").is_null())
            .then(pl.lit(UNPARSEABLE))
            .otherwise(pl.lit(OK))
            .alias("status"),
            position.alias("position"),
        )
    )
    return validate(out.select(list(PairwiseVerdicts.to_schema().columns)), PairwiseVerdicts)


def authors_rating_rule(verdicts: pl.DataFrame) -> pl.DataFrame:
    """The winners the authors' code stores for Rating verdicts imported the judgelab way: a
    tie goes to the answer shown second, a verdict without one (a score that is not an
    integer) to the answer shown first; decisive verdicts stay."""
    second = pl.when(pl.col("shown_first") == "a").then(pl.lit("b")).otherwise(pl.lit("a"))
    winner = (
        pl.when(pl.col("winner") == "tie")
        .then(second)
        .when(pl.col("winner").is_null())
        .then(pl.col("shown_first"))
        .otherwise(pl.col("winner"))
    )
    position = pl.when(pl.col("winner") == pl.col("shown_first")).then(pl.lit("A"))
    out = verdicts.with_columns(winner.alias("winner"), pl.lit(OK).alias("status"))
    out = out.with_columns(position.otherwise(pl.lit("B")).alias("position"))
    return validate(out, PairwiseVerdicts)
