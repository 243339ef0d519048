"""grading_items: TruthfulQA's sampled candidates, each with a reference answer to grade against.

The candidates are the accuracy study's sample (tasks/benchmarks/truthfulqa.py: one candidate per
question, correct with probability `share_correct`). A candidate's reference is its question's
best answer; when the candidate *is* the best answer, the next answer of the question's correct
pool, so no candidate is graded against itself. A question whose only correct answer is the
candidate has no reference: that item is dropped, and counted."""

from __future__ import annotations

import polars as pl

from schemas.validate import validate
from tasks.grading.schemas.grading_items import GradingItems


def grading_text(question: str, reference: str, answer: str) -> str:
    """What the judge reads: the question, the reference answer and the candidate."""
    return f'Question: "{question}"\nReference answer: "{reference}"\nCandidate answer: "{answer}"'


def grading_items(candidates: pl.DataFrame, pools: pl.DataFrame) -> tuple[pl.DataFrame, int]:
    """`candidates` (qa_items rows) ⋈ `pools` (question_id, best, next_correct) → the graded
    items, and how many candidates had no reference (dropped)."""
    joined = candidates.join(pools, on="question_id", how="left").with_columns(
        pl.when(pl.col("answer") == pl.col("best"))
        .then(pl.col("next_correct"))
        .otherwise(pl.col("best"))
        .alias("reference_answer")
    )
    kept = joined.filter(pl.col("reference_answer").is_not_null())
    rendered = kept.select(
        "item_id",
        "benchmark",
        "domain",
        "question_id",
        "question",
        "reference_answer",
        "answer",
        pl.col("reference").alias("correct"),
        "source",
        pl.struct("question", "reference_answer", "answer")
        .map_elements(
            lambda r: grading_text(r["question"], r["reference_answer"], r["answer"]),
            return_dtype=pl.String,
        )
        .alias("text"),
    )
    return validate(rendered, GradingItems), joined.height - kept.height


def reference_pools(questions: list) -> pl.DataFrame:
    """Per question (tasks.benchmarks.truthfulqa.Question): its best answer and the next answer
    of its correct pool (null when it has one correct answer)."""
    rows = [
        {
            "question_id": f"truthfulqa:{q.index}",
            "best": q.correct[0][0] if q.correct else None,
            "next_correct": q.correct[1][0] if len(q.correct) > 1 else None,
        }
        for q in questions
    ]
    schema = {"question_id": pl.String, "best": pl.String, "next_correct": pl.String}
    return pl.DataFrame(rows, schema=schema)
