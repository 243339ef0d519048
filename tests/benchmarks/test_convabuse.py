"""ConvAbuse loader. The texts are offensive: these tests assert counts and numbers only."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from conftest import mirror_dir

from schemas.validate import TableError
from tasks.benchmarks import convabuse

FOLDER = mirror_dir() / "convabuse"
SEV = ["1", "0", "-1", "-2", "-3"]


def _csv(tmp: Path, rows: list[dict[str, str]]) -> Path:
    """One item per row; keys like 'A1' → a comma list per severity, in SEV order."""
    header = ["example_id", "user"] + [f"Annotator{a}_is_abuse.{s}" for a in (1, 2) for s in SEV]
    lines = [",".join(header)]
    for r in rows:
        cells = [r["id"], "some text"]
        for a in ("A1", "A2"):
            cells += [f'"{v}"' if "," in v else v for v in r.get(a, [""] * 5)]
        lines.append(",".join(cells))
    path = tmp / "ConvAbuseEMNLPtest.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_real_splits_load_with_documented_mapping() -> None:
    items, ratings = convabuse.load(FOLDER)
    assert dict(items.group_by("domain").len().iter_rows()) == {
        "train": 2501,
        "valid": 831,
        "test": 853,
    }
    assert items["item_id"].n_unique() == items.height
    assert items["human_mean"].min() >= 0 and items["human_mean"].max() <= 4
    assert ratings.height == items["n_raters"].sum()
    assert (items["n_raters"] >= 1).all()
    # most user turns are not abusive: the median item sits at 0 (harmless)
    assert items["human_mean"].median() == 0.0
    # independent recomputation of the item means from the ratings table
    check = ratings.group_by("item_id").agg(pl.col("rating").mean().alias("m"))
    joined = items.join(check, on="item_id")
    assert (joined["m"] - joined["human_mean"]).abs().max() < 1e-12


def test_repeated_annotations_are_averaged(tmp_path: Path) -> None:
    path = _csv(
        tmp_path,
        [
            # annotator 1: severity 1 (toxicity 0); annotator 2 twice: 1 then −1 → (0 + 2) / 2
            {
                "id": "7",
                "A1": ["1", "0", "0", "0", "0"],
                "A2": ["1, 0", "0, 0", "0, 1", "0, 0", "0, 0"],
            },
            # annotator 1 very strongly abusive (toxicity 4); annotator 2 skipped the item
            {"id": "8", "A1": ["0", "0", "0", "0", "1"]},
        ],
    )
    items, ratings = convabuse.load_split(path, "test")
    assert items["human_mean"].to_list() == [pytest.approx(0.5), 4.0]
    assert items["n_raters"].to_list() == [2, 1]
    assert ratings.sort("item_id", "rater")["rating"].to_list() == [0.0, 1.0, 4.0]


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        ({"id": "9", "A1": ["1", "1", "0", "0", "0"]}, "line 2, column Annotator1_is_abuse.*"),
        ({"id": "9", "A1": ["0", "0", "0", "0", "0"]}, "annotation 1 marks 0 severities"),
        ({"id": "9"}, "item '9' has no annotation"),
    ],
    ids=["two-severities", "no-severity", "no-annotator"],
)
def test_bad_annotations_name_file_line_column(tmp_path: Path, row: dict, expected: str) -> None:
    with pytest.raises(TableError) as err:
        convabuse.load_split(_csv(tmp_path, [row]), "test")
    assert expected in str(err.value) and "ConvAbuseEMNLPtest.csv" in str(err.value)
