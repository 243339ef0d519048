"""Benchmark loaders: raw upstream files → validated `items` and `ratings` tables."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from judgelab.settings import Settings
from judgelab.study import Study
from tasks.sources import extract_tar, fetch


def load(study: Study, settings: Settings) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Load a study's benchmark → (`items`, `ratings`): a user's file, or a built-in set
    fetched (checksum-verified) from data/raw, the mirror or its origin."""
    from tasks.benchmarks import convabuse, ratingfile, vader

    if study.data is not None:
        return ratingfile.load(study.data)
    benchmark = study.benchmark
    paths = fetch([benchmark], settings)
    if benchmark == "vader":
        folder = extract_tar(paths[0], settings.raw_dir / "vader" / "extracted")
        return vader.load(folder / vader.ARCHIVE_DIR)
    if benchmark == "convabuse":
        return convabuse.load(Path(paths[0]).parent)
    raise ValueError(f"no loader for benchmark {benchmark!r}; built in: vader, convabuse")
