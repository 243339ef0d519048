"""A user's own human-rated set (`benchmark = "file"`) → validated `items` and `ratings` tables.

Formats by suffix: `.csv`, `.tsv` (quoted like CSV), `.parquet`, `.jsonl`/`.ndjson`/`.json` (JSON
lines; a `.json` holding one JSON array is refused with the command that converts it). Two layouts:

* per-rater (`rater_column` + `rating_column`): one row per rating. `human_mean` is the mean over
  an item's raters, `human_sd` their population sd (as the built-in loaders), and the `ratings`
  table keeps every rating, raters numbered 0..k−1 by their sorted string ids.
* mean (`mean_column`): one row per item. `ratings` is empty, `human_sd` is null and `n_raters`
  comes from `n_raters_column` (else 1). Analyses that leave one rater out (the human ceiling)
  need per-rater data and have nothing to work with here.

Item ids become `<file stem>:<id>` and `benchmark` is the file stem, like the built-in sets.
Every problem in the file (missing or blank value, non-number, out-of-scale rating, repeated id,
conflicting text, a cell longer than MAX_CELL characters) is collected and reported at once,
naming file, line (row for Parquet) and column. Text values never appear in messages: user sets
may be offensive or private.

Large files: the texts are never all held. The file is read once for the checks with each text
kept as a digest (tasks/benchmarks/reading.py), and the `items` table is shaped in chunks as the
texts of its rows are read back (`item_chunks`), so a 200 MB file is sampled in a few hundred MB.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import polars as pl

from judgelab.data_specs import RatingFile
from schemas.validate import TableError, validate
from tasks.benchmarks.problems import Problems
from tasks.benchmarks.reading import blank, identity, read_table, texts


def load(spec: RatingFile) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Read, check and shape a rating file; raises TableError listing every problem found."""
    chunks, ratings = read(spec)
    return pl.concat(chunks), ratings


def read(spec: RatingFile) -> tuple[Iterator[pl.DataFrame], pl.DataFrame]:
    """The checked file's `items`, as validated chunks in file order (their texts read back
    chunk by chunk), and its `ratings`."""
    path = Path(spec.path)
    seen = identity(path) if path.is_file() else None
    frame = read_checked(spec)
    items, ratings = shape(frame, spec, path.stem)
    return item_chunks(items, spec, seen), ratings


# the rows `read_checked(keep=True)` checked, for the `load` that follows (`judgelab plan`
# checks the file, then loads it): a large file is checked once; keyed by the spec and the
# file's identity, so a file changed in between is read again
_kept: dict[tuple, pl.DataFrame] = {}


def read_checked(spec: RatingFile, keep: bool = False) -> pl.DataFrame:
    """The file's rows by role, every row checked, `text` as a digest (reading._digest);
    nothing is written (the check at load). `keep`: hold them for the next call with the same
    spec (which takes them)."""
    path = Path(spec.path)
    key = (spec.model_dump_json(), path.is_file() and identity(path))
    if key in _kept:
        return _kept.pop(key)

    def checks(frame: pl.DataFrame, problems: Problems) -> None:
        check_rows(frame, spec, path.name, problems)
        check_items(frame, spec, problems)

    roles = _roles(spec)
    shared = list(roles.values()).count(spec.text_column) > 1  # the text is also an id or …
    frame = read_roles(path, roles, checks, () if shared else (spec.text_column,))
    _kept.clear()
    if keep:
        _kept[key] = frame
    return frame


def read_roles(
    path: Path,
    roles: dict[str, str],
    check: Callable[[pl.DataFrame, Problems], None],
    digest: tuple[str, ...] = (),
) -> pl.DataFrame:
    """A user's file with its columns renamed to their roles (role → column; so columns cannot
    clash), `_line` and a 1-based `_row` kept, every row checked by `check`; a TableError
    listing every problem found, before anything is written. Columns in `digest` are read as
    digests (reading.read_table). Shared by the file loaders."""
    raw, problems = read_table(path, list(dict.fromkeys(roles.values())), digest)
    frame = raw.select(
        *(pl.col(column).alias(role) for role, column in roles.items()), "_line"
    ).with_row_index("_row", offset=1)
    check(frame, problems)
    if problems.total:
        listed = "\n  ".join(problems.lines)
        raise TableError(f"{path}: {problems.total} problem(s)\n  {listed}")
    return frame


def _roles(spec: RatingFile) -> dict[str, str]:
    """Role → the user's column name; the frame is renamed to roles so columns cannot clash."""
    roles = {"id": spec.id_column, "text": spec.text_column}
    if spec.mean_column is not None:
        roles["value"] = spec.mean_column
        if spec.n_raters_column is not None:
            roles["n"] = spec.n_raters_column
    else:
        roles |= {"value": spec.rating_column, "rater": spec.rater_column}
    if spec.domain_column is not None:
        roles["domain"] = spec.domain_column
    return roles


# --------------------------------------------------------------------------------------- checking


def empty(frame: pl.DataFrame, role: str) -> pl.Expr:
    """`blank`, or null for a column read as a digest (reading._digest: null when blank)."""
    return blank(role) if frame.schema[role] == pl.String else pl.col(role).is_null()


def _number(role: str) -> pl.Expr:
    return pl.col(role).str.strip_chars().cast(pl.Float64, strict=False)


def show(value: str | None) -> str:
    return repr(value if value is None or len(value) <= 40 else value[:40] + "…")


def check_rows(frame: pl.DataFrame, spec: RatingFile, file: str, problems: Problems) -> None:
    """Per-row problems: blank ids/texts/raters/domains, non-numbers, values off the scale."""
    roles = _roles(spec)
    if frame.height == 0:
        problems.add(f"{file}: no data rows")
        return
    for role, what in [
        ("id", "empty item id"),
        ("text", "empty text"),
        ("rater", "empty rater id"),
        ("domain", "empty domain"),
    ]:
        if role in roles:
            problems.rows(frame.filter(empty(frame, role)), roles[role], lambda r, w=what: w)
    lo, hi = spec.scale_min, spec.scale_max
    value = _number("value")
    problems.rows(
        frame.filter(blank("value")), roles["value"], lambda r: "empty, expected a number"
    )
    problems.rows(
        frame.filter(~blank("value") & (value.is_null() | value.is_nan())),
        roles["value"],
        lambda r: f"{show(r['value'])} is not a number",
    )
    problems.rows(
        frame.filter(~value.is_nan() & (value.is_infinite() | (value < lo) | (value > hi))),
        roles["value"],
        lambda r: f"{show(r['value'])} is outside the scale [{lo:g}, {hi:g}]",
    )
    if "n" in roles:
        n = _number("n")
        problems.rows(
            frame.filter(n.is_null() | ~n.is_finite() | (n < 1) | (n != n.floor())),
            roles["n"],
            lambda r: f"{show(r['n'])} is not a whole number of raters ≥ 1",
        )


def repeats(frame: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """Groups of rows sharing `keys`, with the lines they occur on (`_line`), in file order.
    Rows whose first key is unique (every id of a mean file) are not grouped: counting a
    large file's rows by key held ~200 MB more than counting its distinct ids."""
    if frame[keys[0]].n_unique() == frame.height:
        frame = frame.clear()
    return (
        frame.group_by(keys, maintain_order=True)
        .agg(pl.col("_line"), pl.len().alias("_n"))
        .filter(pl.col("_n") > 1)
    )


def _conflicts(frame: pl.DataFrame, role: str) -> pl.DataFrame:
    """Items whose rows disagree on `role`: the first row holding each distinct value."""
    firsts = frame.group_by(["id", role], maintain_order=True).agg(pl.col("_line").first())
    return repeats(firsts, ["id"])


def check_items(frame: pl.DataFrame, spec: RatingFile, problems: Problems) -> None:
    """Cross-row problems among rows with an id: repeated ids in a mean file; in a per-rater
    file, texts or domains that differ between an item's rows, and raters rating twice."""
    roles = _roles(spec)
    keys = [r for r in ("id", "rater", "domain") if r in roles]
    if spec.mean_column is not None:
        # distinct digests prove distinct ids, in one pass over 8 bytes an id: the copies
        # below are made only for a file with repeats (or a digest shared by two ids)
        digests = pl.col("id").filter(~blank("id")).str.strip_chars().hash()
        if frame.select(digests.n_unique() == digests.len()).item():
            return
    used = [*keys, *(["text"] if spec.mean_column is None else []), "_line"]
    frame = frame.select(used).filter(~blank("id")).with_columns(pl.col(keys).str.strip_chars())
    if spec.mean_column is not None:
        problems.groups(
            repeats(frame, ["id"]),
            roles["id"],
            lambda r: f"item id {show(r['id'])} is repeated (a mean file has one row per item)",
        )
        return
    for role in ("text", "domain"):
        if role in roles:
            problems.groups(
                _conflicts(frame.filter(~empty(frame, role)), role),
                roles[role],
                lambda r, role=role: f"item id {show(r['id'])} has a different {role} here",
            )
    problems.groups(
        repeats(frame.filter(~blank("rater")), ["id", "rater"]),
        roles["rater"],
        lambda r: f"rater {show(r['rater'])} rates item id {show(r['id'])} more than once",
    )


# ---------------------------------------------------------------------------------------- shaping


def shape(frame: pl.DataFrame, spec: RatingFile, stem: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Checked rows → (`items` without their texts and constant columns, with `_row`, the row
    whose text each takes; `ratings`), on the task's direction of the human scale."""
    from schemas.ratings import Ratings  # pandera: only once the file has passed its checks

    lo, hi = spec.scale_min, spec.scale_max
    value = _number("value")
    if spec.direction == "descending":
        value = lo + hi - value
    # Clipped: rounding can push a reversed value or a mean of in-scale values a hair outside.
    frame = frame.with_columns(
        pl.concat_str(pl.lit(f"{stem}:"), pl.col("id").str.strip_chars()).alias("item_id"),
        value.clip(lo, hi).alias("value"),
        (pl.col("domain").str.strip_chars() if spec.domain_column else pl.lit("all")).alias(
            "domain"
        ),
        pl.col("_row").cast(pl.Int64),
    )
    if spec.mean_column is not None:
        n = _number("n").cast(pl.Int64) if spec.n_raters_column else pl.lit(1, pl.Int64)
        items = frame.select(
            "item_id",
            "domain",
            "_row",
            pl.col("value").alias("human_mean"),
            pl.lit(None, pl.Float64).alias("human_sd"),
            n.alias("n_raters"),
        )
        ratings = pl.DataFrame(
            schema={"item_id": pl.String, "rater": pl.Int64, "rating": pl.Float64}
        )
    else:
        raters = frame["rater"].str.strip_chars()
        numbers = {r: i for i, r in enumerate(sorted(raters.unique().to_list()))}
        ratings = frame.select(
            "item_id",
            raters.replace_strict(numbers, return_dtype=pl.Int64).alias("rater"),
            pl.col("value").alias("rating"),
        )
        items = frame.group_by("item_id", maintain_order=True).agg(
            pl.col("domain").first(),
            pl.col("_row").first(),
            pl.col("value").mean().clip(lo, hi).alias("human_mean"),
            pl.col("value").std(ddof=0).alias("human_sd"),
            pl.len().cast(pl.Int64).alias("n_raters"),
        )
    return items, validate(ratings, Ratings)


def item_chunks(
    items: pl.DataFrame, spec: RatingFile, seen: tuple | None
) -> Iterator[pl.DataFrame]:
    """`items` (from `shape`, in file order) with the texts of their rows read back from the
    file, validated a chunk at a time (the ids are unique over the whole file: the checks saw
    to that). `seen`: the file's identity before its check; a file changed since then (its
    texts unchecked) is a TableError after the last chunk, so the table is not written."""
    from schemas.items import Items

    done, path = 0, Path(spec.path)
    constants = [
        pl.lit(path.stem).alias("benchmark"),
        pl.lit(float(spec.scale_min)).alias("human_min"),
        pl.lit(float(spec.scale_max)).alias("human_max"),
    ]
    for read_back in texts(path, spec.text_column, items["_row"]):
        part = items.slice(done, read_back.height)
        done += read_back.height
        if not part["_row"].equals(read_back["_row"]):
            raise TableError(f"{spec.path}: the file changed while it was read; run again")
        text = read_back[spec.text_column].alias("text")
        yield validate(part.with_columns(text, *constants).drop("_row"), Items)
    if done != items.height or identity(path) != seen:
        raise TableError(f"{spec.path}: the file changed while it was read; run again")
