"""The `[study.<table>]` of a user's own data, one model per study type's file: a rating file
(`data`), question–answer pairs (`qa_data`), texts to rewrite (`texts`), answer pairs
(`pairs`). Each names the columns it reads and what they mean."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, model_validator


class RatingFile(BaseModel):
    """A user's own human-rated set (`benchmark = "file"`): CSV, TSV, Parquet or JSON lines.

    Either `mean_column` (one row per item holding the human mean) or `rater_column` plus
    `rating_column` (one row per rater rating) is given. `scale_min`/`scale_max` declare the
    human scale; `direction = "descending"` means a high human number sits at the *low* end of
    the task's scale (e.g. offensiveness −1..1 where −1 is most offensive) and is reversed.
    Analyses that leave one rater out (the human ceiling) need the per-rater layout.
    Attribute docstrings are the docs' field reference, docs/reference/study-file.md
    (tasks/benchmarks/fields.py).
    """

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    path: str
    """The data file, relative to the study file's folder: `.csv`, `.tsv`, `.parquet`,
    `.jsonl`/`.ndjson`, or `.json` holding JSON lines."""
    id_column: str = "item_id"
    """Item id; ids become `<file stem>:<id>`."""
    text_column: str = "text"
    """The text the judges rate."""
    mean_column: str | None = None
    """Mean layout: one row per item holding the human mean (give this, or `rater_column` and
    `rating_column`)."""
    rater_column: str | None = None
    """Per-rater layout: who gave the rating (with `rating_column`); one row per rating."""
    rating_column: str | None = None
    """Per-rater layout: one rater's rating of the item."""
    n_raters_column: str | None = None
    """Mean layout only: how many raters are behind each mean (absent: 1)."""
    domain_column: str | None = None
    """Strata for sampling (e.g. the source of a text); absent: one domain, `all`."""
    scale_min: float
    """Low end of the human scale."""
    scale_max: float
    """High end of the human scale."""
    direction: Literal["ascending", "descending"] = "ascending"
    """`descending`: a high human number is the task's low end (reversed on load)."""

    @model_validator(mode="after")
    def one_layout(self) -> RatingFile:
        """Exactly one layout, so the loader never has to guess which columns hold ratings."""
        per_rater = {"rater_column": self.rater_column, "rating_column": self.rating_column}
        given = [k for k, v in per_rater.items() if v is not None]
        if self.mean_column is not None and given:
            raise ValueError(
                f"give mean_column (one row per item) or rater_column + rating_column (one row "
                f"per rating), not both; got mean_column and {' and '.join(given)}"
            )
        if self.mean_column is None and len(given) < 2:
            missing = [k for k in per_rater if k not in given]
            raise ValueError(
                "give mean_column (one row per item) or rater_column + rating_column (one row "
                f"per rating); missing {' and '.join(missing)}"
            )
        if self.n_raters_column is not None and self.mean_column is None:
            raise ValueError("n_raters_column goes with mean_column; per-rater files count raters")
        if not self.scale_min < self.scale_max:
            raise ValueError(f"scale_min {self.scale_min} must be below scale_max {self.scale_max}")
        return self


class QaFile(BaseModel):
    """A user's own question–answer set (`type = "accuracy"`, `benchmark = "file"`).

    A label column states its meaning: `reference_true` names the value of a correct answer,
    or `reference_means` says what a true/yes label marks. Undeclared, only labels that say
    it themselves pass (true/false, 1/0, correct/incorrect, read as "correct"); yes/no and
    other text stop the load with the values found (HaluEval's `hallucination: yes` is a
    *wrong* answer, and was once read as a right one)."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    path: str
    """The data file, relative to the study file's folder: `.csv`, `.tsv`, `.parquet`,
    `.jsonl`/`.ndjson`, or `.json` holding JSON lines."""
    id_column: str | None = None
    """Item id; ids become `<file stem>:<id>` (absent: the data row number)."""
    question_column: str = "question"
    """The question; rows with the same question text are one question."""
    answer_column: str = "answer"
    """The candidate answer the judges grade."""
    reference_column: str | None = None
    """The label saying whether the answer is correct; declare its meaning with
    `reference_true` or `reference_means` unless it is true/false, 1/0 or correct/incorrect.
    Absent: no labels (grade against the consensus, `truth = "consensus"`)."""
    reference_true: str | None = None
    """The label value of a *correct* answer (any case); the column's one other value marks a
    wrong answer."""
    reference_means: Literal["correct", "incorrect"] | None = None
    """What a true/yes/1 label says about the answer: `correct`, or `incorrect` (a
    `hallucination` or `is_wrong` column)."""
    domain_column: str | None = None
    """Strata for sampling (e.g. a category); absent: one domain, `all`."""

    @model_validator(mode="after")
    def one_meaning(self) -> QaFile:
        """A label's meaning is declared once, and only for a label column."""
        given = [k for k in ("reference_true", "reference_means") if getattr(self, k) is not None]
        if len(given) > 1:
            raise ValueError("give reference_true or reference_means, not both")
        if given and self.reference_column is None:
            raise ValueError(f"{given[0]} describes reference_column, which is not set")
        if self.reference_true is not None and not self.reference_true.strip():
            raise ValueError("reference_true is empty; give the label of a correct answer")
        return self


class TextFile(BaseModel):
    """A user's own texts for the tone stress test (`type = "tone"`, `benchmark = "file"`)."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    path: str
    """The data file, relative to the study file's folder: `.csv`, `.tsv`, `.parquet`,
    `.jsonl`/`.ndjson`, or `.json` holding JSON lines."""
    id_column: str = "id"
    """Text id."""
    text_column: str = "text"
    """The text that is rewritten and evaluated."""
    score_column: str | None = None
    """A human score (e.g. an application's panel score): does the tone gap depend on it?"""
    domain_column: str | None = None
    """Strata for sampling; absent: one domain, `all`."""


class PairFile(BaseModel):
    """A user's own pairs of answers (`type = "pairwise"`, `benchmark = "file"`)."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    path: str
    """The data file, relative to the study file's folder: `.csv`, `.tsv`, `.parquet`,
    `.jsonl`/`.ndjson`, or `.json` holding JSON lines."""
    id_column: str | None = None
    """Pair id; ids become `<file stem>:<id>` (absent: the data row number)."""
    context_column: str = "question"
    """The question or conversation both answers reply to."""
    answer_a_column: str = "answer_a"
    """One answer (e.g. system X's); each pair is judged in both orders."""
    answer_b_column: str = "answer_b"
    """The other answer (e.g. system Y's)."""
    preference_column: str | None = None
    """The human preference: `a` or `b` (any case); blank: no label. Absent: no labels."""
    domain_column: str | None = None
    """Strata for sampling; absent: one domain, `all`."""
