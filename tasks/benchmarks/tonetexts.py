"""Texts for the tone stress test → validated `tone_texts`: UKPConvArg1 arguments or a user's file.

UKPConvArg1 (Habernal & Gurevych 2016, ACL; CC BY 4.0): `UKPConvArg1-Ranking-CSV/` holds one
tab-separated file per debate and side (32 files, 1,052 arguments). Each file starts with the
comment line `#id<TAB>rank<TAB>argument`; then one argument a line: its id, its convincingness
rank and its text, with line breaks written as `<br/>`. The rank comes from the crowd's pairwise
"which is more convincing" judgements. Within a file the ranks sum to 1, so they compare
arguments of the same debate side only (a side with 25 arguments has a higher mean than one
with 35). `meta` therefore also gives each argument's place in its file (1 = most convincing)
and the file's size.

* text_id `ukpconvarg1:<argument id>` (the upstream ids are unique across files), corpus
  `ukpconvarg1`, domain = the file stem (`<debate>_<side>`), human_score = the rank.
* text: `<br/>` becomes a line break; nothing else is changed.

A user's file (`load_text_file`): CSV, TSV, Parquet or JSONL read by the rating-file reader
(tasks.benchmarks.ratingfile), so the same formats and the same error messages (file, line or
row, column) apply. text_id is `<file stem>:<id>`, corpus the file stem, domain the domain
column or "all", human_score the optional score column (blank → null), and every other column
goes into `meta` as a JSON object of strings (as a CSV would hold them). Every problem is
collected and reported at once; text values never appear in messages.
"""

from __future__ import annotations

import contextlib
import csv
import json
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from schemas.tone_texts import ToneTexts
from schemas.validate import TableError, validate
from tasks.benchmarks.problems import Problems
from tasks.benchmarks.ratingfile import show
from tasks.benchmarks.reading import DELIMITED, JSON_LINES, SUFFIXES, blank, read_table
from tasks.benchmarks.textfile import cast_columns, read_delimited

if TYPE_CHECKING:  # annotations only
    from judgelab.settings import Settings
    from judgelab.study import Study

UKP = "ukpconvarg1"
UKP_FOLDER = "UKPConvArg1-Ranking-CSV"
UKP_HEADER = "#id\trank\targument"
_BR = r"(?i)[ \t]*<br\s*/?>[ \t]*"  # polars regex: a line break as UKP writes it

# ------------------------------------------------------------------------------------ UKPConvArg1


def _ukp_file(path: Path) -> pl.DataFrame:
    text = path.read_text(encoding="utf-8-sig")
    first = text.split("\n", 1)[0].rstrip("\r")
    if first != UKP_HEADER:
        raise TableError(f"{path.name} line 1: expected the header {UKP_HEADER!r}, found {first!r}")
    rows = read_delimited(text, path.name, ["id", "rank", "argument"]).filter(pl.col("_line") > 1)
    if rows.height == 0:
        raise TableError(f"{path.name}: no arguments after the header line")
    rows = cast_columns(rows, {"rank": pl.Float64})
    debate, _, side = (part.strip("-") for part in path.stem.partition("_"))
    n = rows.height
    position = rows["rank"].rank(method="min", descending=True).cast(pl.Int64)
    meta = [
        json.dumps(
            {"debate": debate, "side": side, "file": path.name, "position": p, "n_in_file": n},
            ensure_ascii=False,
        )
        for p in position
    ]
    return rows.select(
        pl.concat_str(pl.lit(f"{UKP}:"), pl.col("id").str.strip_chars()).alias("text_id"),
        pl.lit(UKP).alias("corpus"),
        pl.lit(path.stem).alias("domain"),
        pl.col("argument").str.replace_all(_BR, "\n").str.strip_chars().alias("text"),
        pl.col("rank").alias("human_score"),
        pl.Series("meta", meta, dtype=pl.String),
        "_file",
        "_line",
    )


def load_ukp(folder: Path) -> pl.DataFrame:
    """All UKPConvArg1 ranking files → `tone_texts`. `folder` holds `UKPConvArg1-Ranking-CSV/`
    (the mirror's `ukpconvarg1/`, or data/raw/ukpconvarg1 after `judgelab data fetch`)."""
    csv_dir = Path(folder) / UKP_FOLDER
    files = sorted(csv_dir.glob("*.csv"))
    if not files:
        raise TableError(f"{csv_dir}: no UKPConvArg1 ranking files (*.csv)")
    frame = pl.concat([_ukp_file(p) for p in files])
    texts = validate(frame.drop("_file", "_line"), ToneTexts, origin=frame.select("_file", "_line"))
    return texts  # files in name order, arguments in file order


# ------------------------------------------------------------------------------------ user files


def _header(path: Path) -> list[str]:
    """Every column name in the file, in order (empty if the reader will reject the file)."""
    suffix = path.suffix.lower()
    if not path.is_file():
        return []
    if suffix in DELIMITED:  # the first record only: a large file is not read for it
        with open(path, encoding="utf-8-sig", errors="replace", newline="") as fh:
            with contextlib.suppress(csv.Error):  # read_table reports a malformed header
                return next(csv.reader(fh, delimiter=DELIMITED[suffix]), [])
            return []
    if suffix == ".parquet":
        try:
            return list(pl.read_parquet_schema(path))
        except Exception:  # read_table reports an unreadable file
            return []
    if suffix in JSON_LINES:
        names: dict[str, None] = {}
        with open(path, encoding="utf-8-sig", errors="replace") as fh:
            for line in fh:
                try:
                    record = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if isinstance(record, dict):
                    names |= dict.fromkeys(record)
        return list(names)
    return []


def load_text_file(
    path: Path | str,
    id_column: str,
    text_column: str,
    score_column: str | None = None,
    domain_column: str | None = None,
) -> pl.DataFrame:
    """A user's texts → `tone_texts`; raises TableError listing every problem found."""
    path = Path(path)
    if path.suffix.lower() in SUFFIXES and not path.is_file():
        raise TableError(f"{path}: text file does not exist")
    roles = {"id": id_column, "text": text_column}
    if score_column is not None:
        roles["score"] = score_column
    if domain_column is not None:
        roles["domain"] = domain_column
    used = set(roles.values())
    others = [c for c in _header(path) if c not in used and c != "_line"]
    columns = list(dict.fromkeys([*roles.values(), *others]))
    raw, problems = read_table(path, columns)
    frame = raw.select(*(pl.col(c).alias(f"_role_{r}") for r, c in roles.items()), *others, "_line")
    _check(frame, roles, path.name, problems)
    if problems.total:
        listed = "\n  ".join(problems.lines)
        raise TableError(f"{path}: {problems.total} problem(s)\n  {listed}")
    meta = (
        pl.struct(others).struct.json_encode() if others else pl.lit(None, dtype=pl.String)
    ).alias("meta")
    texts = frame.select(
        pl.concat_str(pl.lit(f"{path.stem}:"), pl.col("_role_id").str.strip_chars()).alias(
            "text_id"
        ),
        pl.lit(path.stem).alias("corpus"),
        (pl.col("_role_domain").str.strip_chars() if domain_column else pl.lit("all")).alias(
            "domain"
        ),
        pl.col("_role_text").alias("text"),
        (
            pl.col("_role_score").str.strip_chars().cast(pl.Float64, strict=False)
            if score_column
            else pl.lit(None, dtype=pl.Float64)
        ).alias("human_score"),
        meta,
    )
    return validate(texts, ToneTexts)


def _check(frame: pl.DataFrame, roles: dict[str, str], file: str, problems: Problems) -> None:
    """Blank ids, texts and domains, scores that are not finite numbers, repeated ids."""
    if frame.height == 0:
        problems.add(f"{file}: no data rows")
        return
    for role, what in [("id", "empty text id"), ("text", "empty text"), ("domain", "empty domain")]:
        if role in roles:
            problems.rows(frame.filter(blank(f"_role_{role}")), roles[role], lambda r, w=what: w)
    if "score" in roles:
        score = pl.col("_role_score").str.strip_chars().cast(pl.Float64, strict=False)
        bad = frame.filter(~blank("_role_score") & (score.is_null() | ~score.is_finite()))
        problems.rows(bad, roles["score"], lambda r: f"{show(r['_role_score'])} is not a number")
    repeats = (
        frame.filter(~blank("_role_id"))
        .with_columns(pl.col("_role_id").str.strip_chars())
        .group_by("_role_id", maintain_order=True)
        .agg(pl.col("_line"), pl.len().alias("_n"))
        .filter(pl.col("_n") > 1)
    )
    problems.groups(repeats, roles["id"], lambda r: f"text id {show(r['_role_id'])} is repeated")


def from_files(paths: list[Path], settings: Settings, study: Study) -> pl.DataFrame:
    """The manifest's entry point (data/sources.toml `loader`): UKPConvArg1's texts."""
    folder = next(p for p in Path(paths[0]).parents if p.name == UKP_FOLDER)
    return load_ukp(folder.parent)
