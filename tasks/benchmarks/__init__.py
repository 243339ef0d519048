"""Benchmark loaders: raw upstream files → validated `items` and `ratings` tables."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from judgelab.settings import Settings
from tasks.sources import extract_tar, fetch


def load(benchmark: str, settings: Settings) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Fetch (checksum-verified) and load one built-in benchmark → (`items`, `ratings`)."""
    from tasks.benchmarks import convabuse, vader

    paths = fetch([benchmark], settings)
    if benchmark == "vader":
        folder = extract_tar(paths[0], settings.raw_dir / "vader" / "extracted")
        return vader.load(folder / vader.ARCHIVE_DIR)
    if benchmark == "convabuse":
        return convabuse.load(Path(paths[0]).parent)
    raise ValueError(f"no loader for benchmark {benchmark!r}; built in: vader, convabuse")
