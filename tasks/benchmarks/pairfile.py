"""A user's own pairs of answers (`type = "pairwise"`, `benchmark = "file"`) → pairs.

Formats by suffix, read by `reading.read_table`: `.csv`, `.tsv`, `.parquet`,
`.jsonl`/`.ndjson`, `.json` holding JSON lines. One row per pair: a context (the question or
conversation), answer A, answer B and optionally the human's label: `a` or `b` (the answer
preferred) or `tie` (neither, as in FairEval and MT-Bench's human judgments); any case,
surrounding spaces ignored; blank or JSON null: no label. Any other label stops the load with
the values found. Answers keep their columns: A stays A (the study shows each pair
in both orders itself), so a file whose A answers come from one system measures that system's
win rate.

Pair ids become `<file stem>:<id>` (`id_column`), else `<file stem>:<row>` with row the data
row's number (1 = first data row). `domain` comes from `domain_column` (else "all"). Every
problem is reported at once, naming file, line (row for Parquet) and column; texts never
appear in messages.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from judgelab.data_specs import PairFile
from schemas.pairs import LABELS
from tasks.benchmarks.hhrlhf import COLUMNS
from tasks.benchmarks.problems import Problems
from tasks.benchmarks.ratingfile import read_roles, repeats, show
from tasks.benchmarks.reading import blank


def _roles(spec: PairFile) -> dict[str, str]:
    """Role → the user's column name; the frame is renamed to roles so columns cannot clash."""
    roles = {
        "id": spec.id_column,
        "context": spec.context_column,
        "answer_a": spec.answer_a_column,
        "answer_b": spec.answer_b_column,
        "preferred": spec.preference_column,
        "domain": spec.domain_column,
    }
    return {role: column for role, column in roles.items() if column is not None}


def _preference() -> pl.Expr:
    return pl.col("preferred").str.strip_chars().str.to_lowercase()


def load(spec: PairFile) -> pl.DataFrame:
    """Read, check and shape a pairs file; raises TableError listing every problem."""
    return shape(read_checked(spec), spec, Path(spec.path).stem)


def read_checked(spec: PairFile) -> pl.DataFrame:
    """The file's rows by role, every row checked; nothing is written (the check at load)."""
    path, roles = Path(spec.path), _roles(spec)
    return read_roles(path, roles, lambda frame, found: check(frame, roles, path.name, found))


def check(frame: pl.DataFrame, roles: dict[str, str], file: str, problems: Problems) -> None:
    """Blank ids, contexts, answers or domains; labels other than a/b/tie; repeated ids."""
    if frame.height == 0:
        problems.add(f"{file}: no data rows")
        return
    for role, what in [
        ("id", "empty pair id"),
        ("context", "empty context"),
        ("answer_a", "empty answer"),
        ("answer_b", "empty answer"),
        ("domain", "empty domain"),
    ]:
        if role in roles:
            problems.rows(frame.filter(blank(role)), roles[role], lambda r, w=what: w)
    if "preferred" in roles:
        problems.rows(
            frame.filter(~blank("preferred") & ~_preference().is_in(LABELS)),
            roles["preferred"],
            lambda r: (
                f"{show(r['preferred'])} is not a preference; write a or b (the answer the "
                "human preferred), tie (neither), or leave it blank"
            ),
        )
    if "id" in roles:
        ids = frame.filter(~blank("id")).with_columns(pl.col("id").str.strip_chars())
        problems.groups(
            repeats(ids, ["id"]), roles["id"], lambda r: f"pair id {show(r['id'])} is repeated"
        )


def shape(frame: pl.DataFrame, spec: PairFile, stem: str) -> pl.DataFrame:
    """Checked rows → the pairs columns (the stage adds the study and validates)."""
    roles = _roles(spec)
    ids = pl.col("id").str.strip_chars() if "id" in roles else pl.col("_row").cast(pl.String)
    domain = pl.col("domain").str.strip_chars() if "domain" in roles else pl.lit("all")
    preferred = (
        pl.when(blank("preferred")).then(None).otherwise(_preference())
        if "preferred" in roles
        else pl.lit(None, pl.String)
    )
    out = frame.select(
        pl.concat_str(pl.lit(f"{stem}:"), ids).alias("pair_id"),
        domain.alias("domain"),
        pl.col("context").str.strip_chars(),
        pl.col("answer_a").str.strip_chars(),
        pl.col("answer_b").str.strip_chars(),
        preferred.alias("preferred"),
        pl.lit(stem).alias("source"),
    )
    return out.select(COLUMNS)
