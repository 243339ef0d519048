"""VADER sentiment benchmark (Hutto & Gilbert 2014): four domains, ~20 raters per text, scale −4..4.

`human_mean` is the published gold standard from `*_GroundTruth.txt`. For 199 tweets it differs
from the mean of the rater list in `tweets_anonDataRatings.txt` (every other domain matches);
we keep both as published: the gold mean in `items`, the raw ratings in `ratings`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from schemas.items import Items
from schemas.ratings import Ratings
from schemas.validate import TableError, validate
from tasks.benchmarks.textfile import cast_columns, read_delimited

if TYPE_CHECKING:  # annotations only
    from judgelab.settings import Settings
    from judgelab.study import Study

DOMAINS = ("tweets", "nytEditorialSnippets", "movieReviewSnippets", "amazonReviewSnippets")
SCALE_MIN, SCALE_MAX = -4.0, 4.0
ARCHIVE_DIR = "hutto_ICWSM_2014"


def _read(folder: Path, name: str) -> tuple[str, str]:
    path = folder / name
    return path.read_bytes().decode("utf-8-sig", errors="strict"), f"{ARCHIVE_DIR}/{name}"


PLAIN_LIST = r"^\s*\[\s*-?\d+(?:\.\d+)?(?:\s*,\s*-?\d+(?:\.\d+)?)*\s*\]\s*$"


def per_rater(raw: pl.DataFrame, r_file: str) -> pl.DataFrame:
    """(id, rater, rating), one row per listed rating. Lists of plain decimals (every row of
    the published files) are split as strings in one pass, 460,000 ratings at full size; a
    file with any other row goes row by row through `json`, which names the rows it rejects."""
    if raw["ratings"].str.contains(PLAIN_LIST).all():
        values = pl.col("ratings").str.strip_chars(" []").str.split(",")
        return (
            raw.select("id", values.list.eval(pl.element().str.strip_chars().cast(pl.Float64)))
            .with_columns(pl.int_ranges(pl.col("ratings").list.len()).alias("rater"))
            .explode("ratings", "rater")
            .select("id", "rater", pl.col("ratings").alias("rating"))
        )
    rows, errors = [], []
    for row in raw.iter_rows(named=True):
        try:
            values = json.loads(row["ratings"])
            if not values or not all(isinstance(v, int | float) for v in values):
                raise ValueError
        except ValueError:
            errors.append(
                f"{r_file} line {row['_line']}, column 'ratings': {row['ratings'][:40]!r}"
            )
            continue
        rows += [(row["id"], i, float(v)) for i, v in enumerate(values)]
    if errors:
        raise TableError(
            "ratings lists that are not JSON number lists\n  " + "\n  ".join(errors[:20])
        )
    return pl.DataFrame(rows, schema=["id", "rater", "rating"], orient="row")


def load_domain(folder: Path, domain: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Join a domain's ground truth (id, mean, text) with its rater file (id, mean, sd, list)."""
    text, gt_file = _read(folder, f"{domain}_GroundTruth.txt")
    truth = read_delimited(text, gt_file, ["id", "human_mean", "text"])
    truth = cast_columns(truth, {"human_mean": pl.Float64})
    origin = truth.select("_file", "_line")

    text, r_file = _read(folder, f"{domain}_anonDataRatings.txt")
    raw = read_delimited(text, r_file, ["id", "mean", "human_sd", "ratings"])
    raw = cast_columns(raw, {"human_sd": pl.Float64})
    ratings = per_rater(raw, r_file)
    n_raters = ratings.group_by("id").agg(pl.len().cast(pl.Int64).alias("n_raters"))
    missing = truth.join(raw, on="id", how="anti")
    if missing.height:
        r = missing.row(0, named=True)
        raise TableError(
            f"{gt_file} line {r['_line']}, column 'id': {r['id']!r} has no row in {r_file} "
            f"({missing.height} such ids)"
        )
    items = (
        truth.join(raw.select("id", "human_sd"), on="id", how="left")
        .join(n_raters, on="id", how="left")
        .select(
            pl.concat_str(pl.lit(f"vader:{domain}:"), "id").alias("item_id"),
            pl.lit("vader").alias("benchmark"),
            pl.lit(domain).alias("domain"),
            "text",
            "human_mean",
            "human_sd",
            "n_raters",
            pl.lit(SCALE_MIN).alias("human_min"),
            pl.lit(SCALE_MAX).alias("human_max"),
        )
    )
    items = validate(items, Items, origin=origin)
    ratings = ratings.select(
        pl.concat_str(pl.lit(f"vader:{domain}:"), "id").alias("item_id"),
        pl.col("rater").cast(pl.Int64),
        "rating",
    )
    return items, validate(ratings, Ratings)


def load(folder: Path) -> tuple[pl.DataFrame, pl.DataFrame]:
    """All four domains → (`items`, `ratings`). `folder` is the extracted `hutto_ICWSM_2014/`."""
    parts = [load_domain(folder, d) for d in DOMAINS]
    items = pl.concat([p[0] for p in parts])
    return validate(items, Items), pl.concat([p[1] for p in parts])


def from_files(paths: list[Path], settings: Settings, study: Study) -> tuple:
    """The manifest's entry point (data/sources.toml `loader`): the fetched archive → tables."""
    from tasks.sources import extract_tar

    folder = extract_tar(paths[0], settings.raw_dir / "vader" / "extracted")
    return load(folder / ARCHIVE_DIR)
