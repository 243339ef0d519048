"""Benchmark loaders: raw upstream files → validated tables; a built-in set is read by the
loader its data/sources.toml entry names, a user's file by its type's file loader."""

from __future__ import annotations

import importlib

import polars as pl

from judgelab.settings import Settings
from judgelab.study import Study
from tasks.benchmarks import hhrlhf
from tasks.sources import fetch, loader_of

# a study's `benchmark` and the manifest entry holding its files, where the names differ
SOURCES = {"hhrlhf": hhrlhf.SOURCE}


def builtin(study: Study, settings: Settings) -> object:
    """A built-in benchmark's tables, fetched (checksum-verified) from data/raw, the mirror
    or its origin, and read by the loader its data/sources.toml entry names (`from_files`)."""
    source = SOURCES.get(study.benchmark, study.benchmark)
    loader = importlib.import_module(loader_of(source))
    return loader.from_files(fetch([source], settings), settings, study)


def load(study: Study, settings: Settings) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Load a rating study's benchmark → (`items`, `ratings`): a user's file or a built-in set."""
    from tasks.benchmarks import ratingfile

    if study.data is not None:
        return ratingfile.load(study.data)
    return builtin(study, settings)


def load_qa(study: Study, settings: Settings) -> pl.DataFrame:
    """An accuracy study's question–answer items (`qa_items`), sampled here: TruthfulQA draws
    one candidate per question (`sample_size` questions); a user's file is sampled by domain."""
    from tasks.benchmarks import qafile
    from tasks.plan import sample_items

    if study.qa_data is not None:
        return sample_items(qafile.load(study.qa_data), study.sample_size, study.seed)
    return builtin(study, settings)
