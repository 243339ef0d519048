"""A user's own question–answer set → validated `qa_items` (source "file").

Formats by suffix, read by `reading.read_table`: `.csv`, `.tsv`, `.parquet`, `.jsonl`/`.ndjson`,
`.json` holding JSON lines. One row per candidate answer: a question, an answer and optionally a
reference label saying whether the answer is correct. What a label means is declared, never
guessed (any case, surrounding spaces ignored):

* `reference_true = "no"`: that value marks a correct answer, the one other value a wrong one;
* `reference_means = "correct" | "incorrect"`: what a true/1/yes label says (false/0/no, the
  opposite);
* undeclared: only labels that say it themselves, true/false, 1/0 (also 1.0/0.0, as a float
  column writes them) or correct/incorrect; anything else (yes/no above all: HaluEval's
  `hallucination = yes` is a wrong answer) stops the load with the values found.

A blank label (or JSON null, or no `reference_column` at all) means no label: `reference` is null.

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

from judgelab.data_specs import QaFile
from schemas.validate import validate
from tasks.benchmarks.problems import Problems
from tasks.benchmarks.qa import qa_text
from tasks.benchmarks.ratingfile import read_roles, repeats, show
from tasks.benchmarks.reading import blank

TRUE, FALSE = ("true", "1", "1.0"), ("false", "0", "0.0")
SELF_EVIDENT = {  # undeclared labels that say what they mean
    **dict.fromkeys((*TRUE, "correct"), True),
    **dict.fromkeys((*FALSE, "incorrect"), False),
}
BOOLEAN = {**dict.fromkeys((*TRUE, "yes"), True), **dict.fromkeys((*FALSE, "no"), False)}
SHOWN_VALUES = 10  # distinct label values named in a message
DECLARE = (
    'declare it in [study.qa_data]: reference_true = "<the label of a correct answer>", or '
    'reference_means = "correct" | "incorrect" (what a true/yes label says)'
)


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


def _lowered() -> pl.Expr:
    return pl.col("reference").str.strip_chars().str.to_lowercase()


def _label(spec: QaFile) -> pl.Expr:
    """The reference as a boolean (True = the answer is correct), as the file declares it;
    null for a blank or an unreadable label (which `check_labels` reports)."""
    if spec.reference_true is not None:
        return (
            pl.when(blank("reference"))
            .then(None)
            .otherwise(_lowered() == spec.reference_true.strip().lower())
        )
    table = SELF_EVIDENT if spec.reference_means is None else BOOLEAN
    label = _lowered().replace_strict(table, default=None, return_dtype=pl.Boolean)
    return ~label if spec.reference_means == "incorrect" else label


def label_values(frame: pl.DataFrame) -> list[tuple[str, int]]:
    """The distinct non-blank labels (stripped, lower case) with their counts, most common
    first: what a message about undeclared or ambiguous labels shows."""
    counts = (
        frame.filter(~blank("reference"))
        .group_by(_lowered().alias("value"))
        .len()
        .sort(["len", "value"], descending=[True, False])
    )
    return list(counts.iter_rows())


def _listed(values: list[tuple[str, int]]) -> str:
    shown = ", ".join(f"{show(v)} ({n})" for v, n in values[:SHOWN_VALUES])
    more = len(values) - SHOWN_VALUES
    return shown + (f" and {more} more" if more > 0 else "")


def check_labels(frame: pl.DataFrame, spec: QaFile, file: str, problems: Problems) -> None:
    """Labels that do not say, or cannot say, whether an answer is correct: undeclared text,
    more than two values under `reference_true` or without it among them, and labels that
    are not true/false under `reference_means` (these by row)."""
    column = spec.reference_column
    values = label_values(frame)
    where = f"{file}, column {column!r}"
    if spec.reference_true is not None:
        wanted = spec.reference_true.strip().lower()
        if len(values) > 2:
            problems.add(
                f"{where}: reference_true = {spec.reference_true!r} splits labels in two, and "
                f"the column holds {len(values)} values: {_listed(values)}"
            )
        elif values and wanted not in {v for v, _ in values}:
            problems.add(
                f"{where}: reference_true = {spec.reference_true!r} is not among the labels "
                f"found: {_listed(values)}"
            )
    elif spec.reference_means is not None:
        problems.rows(
            frame.filter(~blank("reference") & _label(spec).is_null()),
            column,
            lambda r: (
                f"{show(r['reference'])} is not a true/false label; with reference_means "
                "the labels are true/false, 1/0 or yes/no (any case)"
            ),
        )
    elif any(v not in SELF_EVIDENT for v, _ in values):
        problems.add(
            f"{where}: the labels {_listed(values)} do not say whether an answer is correct; "
            f"{DECLARE}"
        )


def split(items: pl.DataFrame) -> str:
    """ "200 items: reference TRUE 120, FALSE 80" (plus unlabelled ones): what `plan` shows
    before anything is spent, so an inverted label is seen at a glance."""
    ref = items["reference"]
    parts = [f"TRUE {ref.sum()}", f"FALSE {(~ref).sum()}"]
    if ref.null_count():
        parts.append(f"no label {ref.null_count()}")
    return f"{items.height} items: reference (the answer is correct) {', '.join(parts)}"


def meaning(spec: QaFile | None) -> str:
    """How the study reads its reference labels, in words."""
    if spec is None:
        return "the benchmark's own label"
    if spec.reference_column is None:
        return "no reference column"
    if spec.reference_true is not None:
        return f"column {spec.reference_column!r}: {spec.reference_true!r} = correct"
    if spec.reference_means == "incorrect":
        return f"column {spec.reference_column!r}: true/yes = incorrect"
    return f"column {spec.reference_column!r}: true = correct"


def load(spec: QaFile) -> pl.DataFrame:
    """Read, check and shape a question–answer file; raises TableError listing every problem."""
    return shape(read_checked(spec), spec, Path(spec.path).stem)


def read_checked(spec: QaFile) -> pl.DataFrame:
    """The file's rows by role, every row checked; nothing is written (the check at load)."""
    path = Path(spec.path)
    return read_roles(path, _roles(spec), lambda frame, found: check(frame, spec, path.name, found))


def labelled(frame: pl.DataFrame) -> int:
    """How many checked rows carry a reference label."""
    return frame.filter(~blank("reference")).height if "reference" in frame.columns else 0


def check(frame: pl.DataFrame, spec: QaFile, file: str, problems: Problems) -> None:
    """Blank ids, questions, answers or domains; labels of no declared meaning; repeated ids;
    a question whose rows disagree on its domain."""
    roles = _roles(spec)
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
        check_labels(frame, spec, file, problems)
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
            pl.col("_line").first()
        )
        problems.groups(
            repeats(firsts, ["question"]),
            roles["domain"],
            lambda r: "one question, a different domain on each of these rows",
        )


def shape(frame: pl.DataFrame, spec: QaFile, stem: str) -> pl.DataFrame:
    """Checked rows → `qa_items`."""
    roles = _roles(spec)
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
        (_label(spec) if "reference" in roles else pl.lit(None, pl.Boolean)).alias("reference"),
        pl.lit("file").alias("source"),
        pl.Series(
            "text",
            [qa_text(q, a) for q, a in zip(frame["question"], frame["answer"], strict=True)],
            pl.String,
        ),
    )
    return validate(items, QaItems)
