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


def load_qa(study: Study, settings: Settings) -> pl.DataFrame:
    """An accuracy study's question–answer items (`qa_items`), sampled here: TruthfulQA draws
    one candidate per question (`sample_size` questions); a user's file is sampled by domain."""
    from tasks.benchmarks import qafile, truthfulqa
    from tasks.plan import sample_items

    if study.qa_data is not None:
        return sample_items(qafile.load(study.qa_data), study.sample_size, study.seed)
    (path,) = fetch([study.benchmark], settings)
    return truthfulqa.load(Path(path), study.sample_size, study.share_correct, study.seed)
