"""ConvAbuse (Cercas Curry et al. 2021): abuse toward conversational agents, per-annotator severity.

Each annotator marks one of five one-hot columns `AnnotatorN_is_abuse.{1,0,-1,-2,-3}`
(1 not abusive, 0 ambiguous, −1/−2/−3 mildly/strongly/very strongly abusive). judgelab turns
severity s into toxicity t = 1 − s on a harmless → very toxic scale 0..4:

    s:  1 → t 0 harmless · 0 → 1 ambiguous · −1 → 2 mild · −2 → 3 strong · −3 → 4 very strong

Some cells hold repeated annotations by the same annotator ("1, 1", "0, 1"): position j of
every cell forms annotation j, and the annotator's rating is the mean over their annotations.
The item mean is the mean over annotators (`human_sd`: population sd over annotators). The
rated text is the user turn (`user`). These texts are offensive: never print them.
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from schemas.items import Items
from schemas.ratings import Ratings
from schemas.validate import TableError, validate

if TYPE_CHECKING:  # annotations only
    from judgelab.settings import Settings
    from judgelab.study import Study

SPLITS = ("train", "valid", "test")
SEVERITIES = (1, 0, -1, -2, -3)
SCALE_MIN, SCALE_MAX = 0.0, 4.0


def toxicity(severity: int) -> float:
    return float(1 - severity)


def _rater_rating(cells: dict[int, str | None], where: str) -> float | None:
    """Mean toxicity over one annotator's annotations of one item; None if they skipped it."""
    if all(v is None or not v.strip() for v in cells.values()):
        return None
    lists = {s: [x.strip() for x in (v or "").split(",") if x.strip()] for s, v in cells.items()}
    repeats = max(len(v) for v in lists.values())
    ratings = []
    for j in range(repeats):
        chosen = [s for s, vals in lists.items() if j < len(vals) and vals[j] == "1"]
        if len(chosen) != 1:
            raise TableError(
                f"{where}: annotation {j + 1} marks {len(chosen)} severities, "
                f"expected exactly one of {SEVERITIES}"
            )
        ratings.append(toxicity(chosen[0]))
    return statistics.fmean(ratings)


def load_split(path: Path, split: str) -> tuple[pl.DataFrame, pl.DataFrame]:
    frame = pl.read_csv(path, infer_schema_length=0)  # all strings: cells like "1, 1"
    missing = {"example_id", "user"} - set(frame.columns)
    if missing:
        raise TableError(f"{path.name}: missing column(s) {sorted(missing)}")
    annotators = sorted(
        {c.split("_is_abuse.")[0] for c in frame.columns if "_is_abuse." in c},
        key=lambda a: int(a.removeprefix("Annotator")),
    )
    items, ratings = [], []
    for line, row in enumerate(frame.iter_rows(named=True), start=2):  # line 1 is the header
        item_id = f"convabuse:{row['example_id']}"
        per_rater = []
        for a in annotators:
            cells = {s: row.get(f"{a}_is_abuse.{s}") for s in SEVERITIES}
            r = _rater_rating(cells, f"{path.name} line {line}, column {a}_is_abuse.*")
            if r is not None:
                per_rater.append((int(a.removeprefix("Annotator")), r))
        if not per_rater:
            raise TableError(
                f"{path.name} line {line}, column 'Annotator*_is_abuse.*': "
                f"item {row['example_id']!r} has no annotation"
            )
        values = [r for _, r in per_rater]
        items.append(
            {
                "item_id": item_id,
                "benchmark": "convabuse",
                "domain": split,
                "text": row["user"] or "",
                "human_mean": statistics.fmean(values),
                "human_sd": statistics.pstdev(values),
                "n_raters": len(values),
                "human_min": SCALE_MIN,
                "human_max": SCALE_MAX,
            }
        )
        ratings += [{"item_id": item_id, "rater": rater, "rating": r} for rater, r in per_rater]
    origin = pl.DataFrame(
        {"_file": [path.name] * len(items), "_line": list(range(2, len(items) + 2))}
    )
    items_frame = validate(
        pl.DataFrame(items, schema_overrides={"n_raters": pl.Int64}), Items, origin=origin
    )
    ratings_frame = pl.DataFrame(
        ratings, schema={"item_id": pl.String, "rater": pl.Int64, "rating": pl.Float64}
    )
    return items_frame, validate(ratings_frame, Ratings)


def load(folder: Path) -> tuple[pl.DataFrame, pl.DataFrame]:
    """All three splits → (`items`, `ratings`). `folder` holds ConvAbuseEMNLP{split}.csv."""
    parts = [load_split(folder / f"ConvAbuseEMNLP{s}.csv", s) for s in SPLITS]
    items = pl.concat([p[0] for p in parts])
    return validate(items, Items), pl.concat([p[1] for p in parts])


def from_files(paths: list[Path], settings: Settings, study: Study) -> tuple:
    """The manifest's entry point (data/sources.toml `loader`): the fetched splits → tables."""
    return load(Path(paths[0]).parent)
