"""A user's own question–answer set → validated `qa_items` (source "file").

Formats by suffix, read by `ratingfile.read_table`: `.csv`, `.tsv`, `.parquet`, `.jsonl`/`.ndjson`.
One row per candidate answer: a question, an answer and optionally a reference label saying
whether the answer is correct. Accepted labels, any case and surrounding spaces ignored:
true/false, 1/0 (also 1.0/0.0, as a float column writes them), yes/no, correct/incorrect. A blank
label (or JSON null, or no `reference_column` at all) means no label: `reference` is null.

Item ids become `<file stem>:<id>` (`id_column`), else `<file stem>:<row>` with row the data
row's number (1 = first data row; blank lines are not rows). Rows with the same question text
(after stripping) share `question_id` `<file stem>:q<row of its first row>`. `benchmark` is the
file stem, `domain` comes from `domain_column` (else "all") and must agree between the rows of
one question. Every problem is reported at once, naming file, line (row for Parquet) and column;
texts never appear in messages.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from judgelab.study import QaFile
from schemas.validate import TableError, validate
from tasks.benchmarks.qa import qa_text
from tasks.benchmarks.ratingfile import Problems, blank, read_table, repeats, show

LABELS = {
    **dict.fromkeys(("true", "1", "1.0", "yes", "correct"), True),
    **dict.fromkeys(("false", "0", "0.0", "no", "incorrect"), False),
}
ACCEPTED = "true/false, 1/0, yes/no, correct/incorrect (any case)"


def _roles(spec: QaFile) -> dict[str, str]:
    """Role → the user's column name; the frame is renamed to roles so columns cannot clash."""
    roles = {
        "id": spec.id_column,
        "question": spec.question_column,
        "answer": spec.answer_column,
        "reference": spec.reference_column,
        "domain": spec.domain_column,
    }
    return {role: column for role, column in roles.items() if column is not None}


def _label() -> pl.Expr:
    lowered = pl.col("reference").str.strip_chars().str.to_lowercase()
    return lowered.replace_strict(LABELS, default=None, return_dtype=pl.Boolean)


def load(spec: QaFile) -> pl.DataFrame:
    """Read, check and shape a question–answer file; raises TableError listing every problem."""
    return shape(read_checked(spec), _roles(spec), Path(spec.path).stem)


def read_checked(spec: QaFile) -> pl.DataFrame:
    """The file's rows by role, every row checked; nothing is written (the check at load)."""
    path = Path(spec.path)
    roles = _roles(spec)
    raw, problems = read_table(path, list(dict.fromkeys(roles.values())))
    frame = raw.select(
        *(pl.col(column).alias(role) for role, column in roles.items()), "_where"
    ).with_row_index("_row", offset=1)
    check(frame, roles, path.name, problems)
    if problems.total:
        listed = "\n  ".join(problems.lines)
        raise TableError(f"{path}: {problems.total} problem(s)\n  {listed}")
    return frame


def labelled(frame: pl.DataFrame) -> int:
    """How many checked rows carry a reference label."""
    return frame.filter(~blank("reference")).height if "reference" in frame.columns else 0


def check(frame: pl.DataFrame, roles: dict[str, str], file: str, problems: Problems) -> None:
    """Blank ids, questions, answers or domains; unknown labels; repeated ids; a question whose
    rows disagree on its domain."""
    if frame.height == 0:
        problems.add(f"{file}: no data rows")
        return
    for role, what in [
        ("id", "empty item id"),
        ("question", "empty question"),
        ("answer", "empty answer"),
        ("domain", "empty domain"),
    ]:
        if role in roles:
            problems.rows(frame.filter(blank(role)), roles[role], lambda r, w=what: w)
    if "reference" in roles:
        problems.rows(
            frame.filter(~blank("reference") & _label().is_null()),
            roles["reference"],
            lambda r: f"{show(r['reference'])} is not a reference label; accepted: {ACCEPTED}",
        )
    if "id" in roles:
        ids = frame.filter(~blank("id")).with_columns(pl.col("id").str.strip_chars())
        problems.groups(
            repeats(ids, ["id"]),
            roles["id"],
            lambda r: f"item id {show(r['id'])} is repeated",
        )
    if "domain" in roles:
        given = frame.filter(~blank("question") & ~blank("domain")).with_columns(
            pl.col("question", "domain").str.strip_chars()
        )
        firsts = given.group_by(["question", "domain"], maintain_order=True).agg(
            pl.col("_where").first()
        )
        problems.groups(
            repeats(firsts, ["question"]),
            roles["domain"],
            lambda r: "one question, a different domain on each of these rows",
        )


def shape(frame: pl.DataFrame, roles: dict[str, str], stem: str) -> pl.DataFrame:
    """Checked rows → `qa_items`."""
    from schemas.qa_items import QaItems  # pandera: only once the file has passed its checks

    frame = frame.with_columns(pl.col("question", "answer").str.strip_chars())
    ids = pl.col("id").str.strip_chars() if "id" in roles else pl.col("_row").cast(pl.String)
    first_row = pl.col("_row").min().over("question").cast(pl.String)
    items = frame.select(
        pl.concat_str(pl.lit(f"{stem}:"), ids).alias("item_id"),
        pl.lit(stem).alias("benchmark"),
        (pl.col("domain").str.strip_chars() if "domain" in roles else pl.lit("all")).alias(
            "domain"
        ),
        pl.concat_str(pl.lit(f"{stem}:q"), first_row).alias("question_id"),
        "question",
        "answer",
        (_label() if "reference" in roles else pl.lit(None, pl.Boolean)).alias("reference"),
        pl.lit("file").alias("source"),
        pl.Series(
            "text",
            [qa_text(q, a) for q, a in zip(frame["question"], frame["answer"], strict=True)],
            pl.String,
        ),
    )
    return validate(items, QaItems)
