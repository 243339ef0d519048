"""Statements that must not get through `judgelab sql` (it only reads): every write path
DuckDB has, and reads outside the warehouse. Shared by tests/test_sql_readonly.py and
bench/bench_sql_door.py."""

from __future__ import annotations

from pathlib import Path


def refused(store_dir: Path, warehouse_dir: Path, out: Path) -> dict[str, str]:
    """What → statement; `out` is a folder outside data/ holding `outside.parquet`."""
    store_dir, wh = store_dir.resolve(), warehouse_dir.resolve()
    fake = "select * replace (99.0 as score, now() as created_at) from stg_judgments"
    return {
        "COPY into the store": f"copy ({fake}) to '{store_dir}/part-fake.parquet'",
        "COPY outside data/": f"copy (select 1) to '{out}/out.csv'",
        "EXPORT DATABASE": f"export database '{out}/export'",
        "EXPORT DATABASE into the warehouse": f"export database '{wh}/export'",
        "ATTACH": f"attach '{out}/other.duckdb' as other",
        "INSTALL": "install httpfs",
        "LOAD": "load httpfs",
        "CREATE": "create table t as select 1 as a",
        "INSERT": "insert into stg_judgments select * from stg_judgments",
        "SET": "set enable_external_access = true",
        "EXPLAIN ANALYZE COPY": f"explain analyze copy (select 1) to '{store_dir}/part-e.parquet'",
        "a second statement": f"select 1; copy (select 1) to '{out}/second.csv'",
        "read_parquet outside": f"select count(*) from read_parquet('{out}/outside.parquet')",
        "read_csv /etc/passwd": "select count(*) from read_csv('/etc/passwd')",
        "read_text outside": "select * from read_text('/etc/hostname')",
    }
