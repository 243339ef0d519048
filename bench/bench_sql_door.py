"""The warehouse's doors under hostile input, on a temporary warehouse: prints what each does.

sql:    every write path through `judgelab sql` (COPY, EXPORT, ATTACH, INSTALL, LOAD, CREATE,
        INSERT, SET, EXPLAIN ANALYZE, a second statement) and reads inside and outside the
        warehouse → exit code, refused/allowed, the one line printed, files written.
store:  a well-formed fake part (the stored answers with score 99, newer) and a garbage file
        planted in data/store/judgments → the warning naming each, what done_keys,
        latest_rows and the stg_judgments view return.
gate:   `where` payloads that escaped their study → rows graded (the study has 12 of 36), or
        the one-line refusal; beside it, the rows the earlier query (`… and (<where>)`) read.

.venv/bin/python bench/bench_sql_door.py
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from judgelab.env import apply_defaults

apply_defaults()

import polars as pl  # noqa: E402

from judgelab.cli import main  # noqa: E402
from judgelab.settings import Settings  # noqa: E402
from judgelab.study import Rule  # noqa: E402
from judgelab.testing.sql_door import refused  # noqa: E402
from tasks import gate, warehouse  # noqa: E402
from tasks.judging import store  # noqa: E402

STUDIES = ["paper", "other-a", "other-b"]  # 12 designs each; the gate checks "paper"


def _answers(score: float, at: datetime) -> pl.DataFrame:
    return store.rows_to_frame(
        [
            {
                "key": f"{i:064d}",
                "model": "fake/x",
                "status": "ok",
                "score": score,
                "raw": f'{{"score": {score:g}}}',
                "answers": "[]",
                "attempts": 1,
                "latency_s": 0.1,
                "run_id": "bench",
                "created_at": at,
            }
            for i in range(12)
        ]
    )


def _metrics() -> pl.DataFrame:
    """rating_metrics: 12 designs per study, every number 0.5."""
    columns = warehouse.table_schema("rating_metrics").to_schema().columns
    rows = []
    for study in STUDIES:
        for d in range(12):
            row: dict = {}
            for name, col in columns.items():
                dtype = col.dtype.type
                row[name] = "x" if dtype == pl.String else 10 if dtype.is_integer() else 0.5
            rows.append(row | {"study": study, "judge": f"j{d}", "kind": "judge"})
    return pl.DataFrame(rows, schema={c: col.dtype.type for c, col in columns.items()})


def _files(root: Path) -> set[Path]:
    return {p for p in root.rglob("*") if p.is_file()}


def sql_door(settings: Settings, root: Path) -> None:
    store_dir = settings.store_dir.resolve()
    pl.DataFrame({"a": [1]}).write_parquet(root / "outside.parquet")
    cases = refused(settings.store_dir, settings.warehouse_dir, root) | {
        "read_parquet in the store": f"select count(*) from read_parquet('{store_dir}/part-*')",
        "select from a view": "select count(*), max(score) from stg_judgments",
    }
    print("== judgelab sql")
    for what, sql in cases.items():
        before = _files(root)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["sql", sql])
        written = sorted(str(p.relative_to(root)) for p in _files(root) - before)
        verdict = "allowed" if code == 0 else "refused"
        said = err.getvalue().strip().removeprefix("judgelab: ")
        print(f"{what:35} exit {code} {verdict:8} files written: {written or 'none'}")
        if said:
            print(f"{'':35} {said}")


def planted_parts(settings: Settings, warnings: list[str]) -> None:
    print("\n== a foreign part and a garbage file in data/store/judgments")
    fake = settings.store_dir / "part-99999999T000000000000-fake0000.parquet"
    _answers(99.0, datetime.now(UTC)).write_parquet(fake)
    (settings.store_dir / "part-zzz.parquet").write_bytes(b"not parquet\n" * 8)
    done = store.done_keys(settings.store_dir).height
    scores = store.latest_rows(settings.store_dir)["score"].unique().to_list()
    warehouse.publish_views(settings)
    view = warehouse.query(settings, "select count(*) as n, max(score) as top from stg_judgments")
    for line in warnings:
        print(f"warning: {line}")
    print(f"done_keys: {done} keys; latest_rows scores: {scores}")
    print(f"stg_judgments: {view['n'].item()} rows, max score {view['top'].item()}")


PAYLOADS = [
    "judge = 'j0' or judge = 'j1'",
    "1=1) or (1=1",
    'true) union all select * from "tbl_rating_performance" where (true',
    "true) union all select * from tbl_rating_performance union all (select * from "
    "tbl_rating_performance where true",
]


def gate_payloads(settings: Settings) -> None:
    print("\n== gate `where` payloads (study 'paper': 12 of 36 rows in tbl_rating_performance)")
    select = 'select * from "tbl_rating_performance"'
    for where in PAYLOADS:
        earlier = warehouse.query(
            settings, f"{select} where true and study = ? and ({where})", ["paper"]
        ).height
        rule = Rule(view="tbl_rating_performance", column="mae", op="<", value=1, where=where)
        try:
            (result,) = gate.run_gate(settings, "paper", [rule])
            now = f"graded {result.n_rows} rows"
        except gate.GateError as exc:
            now = f"refused: {str(exc).split(': ', 1)[1][:70]}"
        print(f"{where[:60]!r:62} earlier query read {earlier:2} rows; now {now}")


def main_bench() -> None:
    warnings: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            warnings.append(record.getMessage())

    logging.getLogger("judgelab.store").addHandler(Collect(logging.WARNING))
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        settings = Settings(data_dir=root / "data")
        store.write_part(settings.store_dir, _answers(3.0, datetime(2026, 1, 1, tzinfo=UTC)))
        for study in STUDIES:
            metrics = _metrics().filter(pl.col("study") == study)
            warehouse.write_table(settings, metrics, "rating_metrics", study)
        warehouse.publish_views(settings)
        os.environ["JUDGELAB_DATA_DIR"] = str(settings.data_dir)
        sql_door(settings, root)
        planted_parts(settings, warnings)
        gate_payloads(settings)


if __name__ == "__main__":
    main_bench()
