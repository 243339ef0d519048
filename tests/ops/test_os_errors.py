"""OS errors read as themselves: disk full (ENOSPC), too many open files (EMFILE), a
PREFECT_HOME that cannot be created, a `data/reports` symlink out of data/ — each one line
`judgelab: PATH: cause (ENAME) — fix`, exit 2, no traceback unless `--debug`; a failed atomic
write leaves no `.tmp-*` file, and a run's start sweeps those a dead writer left."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import polars as pl
import pytest
from filestudy import judgelab, write_study

from judgelab import tempfiles
from judgelab.cli import main
from judgelab.names import UnsafePath
from judgelab.settings import Settings
from tasks import warehouse
from tasks.judging import store

POLARS_ENOSPC = (
    "parquet: File out of specification: underlying IO error: No space left on device (os error 28)"
)


def temp_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob(".tmp-*") if p.is_file())


def failing_writer(error: Exception, monkeypatch: pytest.MonkeyPatch) -> None:
    """Parquet writes start the file, then fail as a full disk does (polars reports it as a
    ComputeError carrying "(os error 28)"; other writers raise the OSError itself), through
    polars or pyarrow's ParquetWriter (a table written in chunks: warehouse.write_chunks)."""
    import pyarrow.parquet as pq

    def write_parquet(self: pl.DataFrame, file: object, *args: object, **kwargs: object) -> None:
        Path(str(file)).write_bytes(b"PAR1")  # mid-write: a partial file is on disk
        raise error

    def write_chunk(self: pq.ParquetWriter, *args: object, **kwargs: object) -> None:
        raise error  # the writer has opened the temp file: a partial file is on disk

    monkeypatch.setattr(pl.DataFrame, "write_parquet", write_parquet)
    monkeypatch.setattr(pq.ParquetWriter, "write_table", write_chunk)


@pytest.mark.parametrize(
    ("error", "cause"),
    [
        (pl.exceptions.ComputeError(POLARS_ENOSPC), "No space left on device (ENOSPC)"),
        (OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)), "No space left on device (ENOSPC)"),
        (OSError(errno.EMFILE, os.strerror(errno.EMFILE)), "Too many open files (EMFILE)"),
    ],
    ids=["polars-enospc", "oserror-enospc", "emfile"],
)
def test_a_failed_write_is_one_line_naming_the_file_and_leaves_no_temp_file(
    tmp_path: Path,
    capsys: pytest.CaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    error: Exception,
    cause: str,
) -> None:
    data = tmp_path / "data"
    monkeypatch.setenv("JUDGELAB_DATA_DIR", str(data))
    study = write_study(tmp_path / "study")
    failing_writer(error, monkeypatch)
    assert main(["plan", str(study)]) == 2
    captured = capsys.readouterr()
    (line,) = captured.err.splitlines()  # one line, no traceback
    items = data / "warehouse" / "items" / "mine.parquet"  # the first table plan writes
    assert line.startswith(f"judgelab: {items}: {cause} — "), line
    if isinstance(error, OSError) and error.errno == errno.EMFILE:
        assert "ulimit -n" in line
    else:
        assert "free space" in line
    assert temp_files(tmp_path) == []


def test_debug_shows_the_traceback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUDGELAB_DATA_DIR", str(tmp_path / "data"))
    study = write_study(tmp_path / "study")
    failing_writer(pl.exceptions.ComputeError(POLARS_ENOSPC), monkeypatch)
    with pytest.raises(OSError) as raised:
        main(["--debug", "plan", str(study)])
    assert raised.value.errno == errno.ENOSPC
    assert isinstance(raised.value.__cause__, pl.exceptions.ComputeError)
    assert temp_files(tmp_path) == []


def test_a_store_part_that_fails_mid_write_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    failing_writer(pl.exceptions.ComputeError(POLARS_ENOSPC), monkeypatch)
    with pytest.raises(OSError) as raised:
        store.write_part(tmp_path / "store", pl.DataFrame(schema=store.SCHEMA))
    assert raised.value.errno == errno.ENOSPC
    assert Path(raised.value.filename).name.startswith("part-")
    assert temp_files(tmp_path) == []
    assert store.part_files(tmp_path / "store") == []


def test_os_errors_are_found_through_wrapping_and_library_words() -> None:
    """Prefect re-raises a task's exception, sometimes as the cause or context of its own;
    DuckDB and SQLite only say the OS's words."""
    from judgelab import oserrors

    try:
        try:
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), "/data/x.parquet")
        except OSError as inner:
            raise RuntimeError("task failed") from inner
    except RuntimeError as outer:
        found = oserrors.find(outer)
    assert found is not None and found.errno == errno.EROFS and found.filename == "/data/x.parquet"
    duckdb_like = type("IOException", (Exception,), {})
    words = duckdb_like('IO Error: Could not write file "x": No space left on device')
    assert oserrors.find(words).errno == errno.ENOSPC
    assert oserrors.find(Exception("database or disk is full")).errno == errno.ENOSPC
    assert oserrors.find(ValueError("Permission denied by the provider")) is None
    assert oserrors.find(FileNotFoundError(errno.ENOENT, "gone", "x")) is None  # own handling


EXHAUST = """
import os, sys
from judgelab.cli import main
import tasks.costs, tasks.judging.store, tasks.rating.study_type, tasks.stages  # imported first
# polars starts its async runtime at its first lazy query, and with no descriptor left for it
# a Rust thread panics (a backtrace on stderr) instead of raising: a run that reaches its limit
# has made many queries by then, so this one has made one too
import polars
polars.LazyFrame({{"a": [1]}}).collect()
fds = []
try:
    while True:
        fds.append(os.open(os.devnull, os.O_RDONLY))
except OSError:
    pass
for _ in range({free}):
    os.close(fds.pop())
sys.exit(main(["plan", sys.argv[1]]))
"""


@pytest.mark.parametrize("free", [3, 6])
def test_a_real_descriptor_limit_is_one_line(tmp_path: Path, free: int) -> None:
    """`judgelab plan` with its open-files limit all but reached (no monkeypatch: the real
    EMFILE, wherever it strikes: the data file, SQLite's journal, which only says "unable to
    open database file"): one line naming the file and EMFILE."""
    study = write_study(tmp_path / "study")
    proc = judgelab(
        str(study),
        script=EXHAUST.format(free=free),
        env={"JUDGELAB_DATA_DIR": str(tmp_path / "data")},
        timeout=300,
    )
    assert proc.returncode == 2, proc.stderr[-3000:]
    (line,) = proc.stderr.splitlines()
    assert line.startswith("judgelab: /") and "Too many open files (EMFILE)" in line, line
    assert "`ulimit -n`: " in line


def test_an_uncreatable_prefect_home_is_one_line_at_once(tmp_path: Path) -> None:
    """PREFECT_HOME under a regular file: the temporary server could never start (it used to
    restart for two minutes and print a thousand lines)."""
    (tmp_path / "file").write_text("")
    home = tmp_path / "file" / "prefect"
    study = write_study(tmp_path / "study")
    env = {"JUDGELAB_DATA_DIR": str(tmp_path / "data"), "PREFECT_HOME": str(home)}
    started = time.monotonic()
    proc = judgelab("run", str(study), env=env | {"PREFECT_API_URL": None}, timeout=120)
    took = time.monotonic() - started
    assert proc.returncode == 2
    (line,) = proc.stderr.splitlines()
    assert line.startswith(f"judgelab: {home}: cannot use PREFECT_HOME: Not a directory (ENOTDIR)")
    assert "PREFECT_API_URL" in line
    assert took < 30, took  # seconds even on a loaded machine: no server is started
    assert not (tmp_path / "data").exists()


def test_a_reports_symlink_out_of_data_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    data, outside = tmp_path / "data", tmp_path / "elsewhere"
    data.mkdir()
    outside.mkdir()
    (data / "reports").symlink_to(outside)
    settings = Settings(data_dir=data)
    from tasks.report.build import report_path

    with pytest.raises(UnsafePath, match="outside"):
        report_path(settings, "studies/rating.toml")
    monkeypatch.setenv("JUDGELAB_DATA_DIR", str(data))
    study = write_study(tmp_path / "study")
    assert main(["report", str(study)]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("judgelab: refusing") and str(outside) in line, line
    assert list(outside.iterdir()) == []
    # a reports folder inside data/ (a symlink to one too) is fine
    (data / "reports").unlink()
    (data / "real").mkdir()
    (data / "reports").symlink_to(data / "real")
    assert report_path(settings, "x.toml") == data / "reports" / "x.html"


def test_a_run_start_sweeps_dead_writers_temp_files_and_publishes_views(tmp_path: Path) -> None:
    import psutil

    settings = Settings(data_dir=tmp_path / "data")
    store_dir, tables = settings.store_dir, settings.warehouse_dir / "items"
    store_dir.mkdir(parents=True)
    tables.mkdir(parents=True)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        before = psutil.Process().create_time() - 60
        left = {
            "dead writer's": store_dir / f".tmp-{dead.pid}-ab12cd34-part-x.parquet.tmp",
            "older version's": tables / ".tmp-0123abcd",
            "live writer's": settings.data_dir / f".tmp-{live.pid}-ab.duckdb",
            "written after we started": tables / f".tmp-{dead.pid}-cd",
        }
        for name, path in left.items():
            path.write_bytes(b"")
            if name != "written after we started":
                os.utime(path, (before, before))
        removed = warehouse.start_run(settings)
        assert sorted(removed) == sorted([left["dead writer's"], left["older version's"]])
        assert temp_files(settings.data_dir) == sorted(
            [left["live writer's"], left["written after we started"]]
        )
    finally:
        live.kill()
        live.wait()
    # a first run publishes the views at its start: SQL answers (empty) from then on
    assert warehouse.query(settings, "select count(*) as n from tbl_rating_performance")[
        "n"
    ].to_list() == [0]
    assert warehouse.query(settings, "select count(*) as n from stg_judgments")["n"][0] == 0


FAULT = """
import os, sys
import polars as pl
real = pl.DataFrame.write_parquet
def write_parquet(self, file, *args, **kwargs):
    name = os.path.basename(str(file))
    if name.startswith(".tmp-") and "part-" in name:  # a judgment store part: disk full
        open(file, "wb").close()
        raise pl.exceptions.ComputeError({message!r})
    return real(self, file, *args, **kwargs)
pl.DataFrame.write_parquet = write_parquet
from judgelab.cli import console
sys.argv = ["judgelab", *sys.argv[1:]]
console()
"""


@pytest.mark.slow
def test_disk_full_inside_a_run_is_one_line_and_recovers(tmp_path: Path) -> None:
    """Inside `judgelab run` (a temporary Prefect server, the error raised in a Prefect task
    and re-raised by the flow): one line, no traceback, no "Error logging to API" after the
    server stopped, no temp file; the next run makes every call, none twice."""
    data = tmp_path / "data"
    study = write_study(tmp_path / "study")
    # the temporary server, whose stop made the noise
    env = {"JUDGELAB_DATA_DIR": str(data), "PREFECT_API_URL": None}
    failed = judgelab("run", str(study), script=FAULT.format(message=POLARS_ENOSPC), env=env)
    assert failed.returncode == 2, failed.stderr[-3000:]
    assert failed.stdout == ""
    (line,) = failed.stderr.splitlines()
    assert "store/judgments/part-" in line and "No space left on device (ENOSPC)" in line, line
    assert temp_files(data) == []
    again = judgelab("run", str(study), env=env)
    assert again.returncode == 0, again.stderr[-3000:]
    assert "Error logging to API" not in again.stderr
    assert temp_files(data) == []
    rows = store.read_store(Settings(data_dir=data).store_dir, ["key", "status"])
    assert rows.height == rows["key"].n_unique() == 3  # every planned call once


def test_a_part_being_written_is_not_read_by_a_views_glob(tmp_path: Path) -> None:
    """A query while a run writes a table part: the half-written temp file beside the parts
    is not matched by the views' `*.parquet` glob (DuckDB's globs match dot files; reading
    it failed "too small to be a Parquet file" in CI's scheduled-run test)."""
    folder = tmp_path / "runs"
    folder.mkdir()

    def count() -> list[tuple]:
        return duckdb.sql(f"select count(*) from read_parquet('{folder}/*.parquet')").fetchall()

    pl.DataFrame({"x": [1, 2]}).write_parquet(folder / "a.parquet")
    with tempfiles.replacing(folder / "b.parquet") as tmp:
        tmp.write_bytes(b"PAR1")  # mid-write
        assert count() == [(2,)]
        assert [p.name for p in folder.glob("*.parquet")] == ["a.parquet"]  # pathlib's too
        pl.DataFrame({"x": [3]}).write_parquet(tmp)
    assert count() == [(3,)]
