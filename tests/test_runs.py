"""The run ledger and "what changed since the last run": snapshots, new judges, changed,
new and removed numbers; and table artifacts that Prefect can store."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime, timedelta

import polars as pl

from judgelab.settings import Settings
from tasks import runs, warehouse
from tasks.artifacts import artifact_key, table_rows

T0 = datetime(2026, 11, 30, 3, 0, tzinfo=UTC)


def metrics(rows: list[tuple[str, float | None]]) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "kind": ["judge"] * len(rows),
            "judge": [j for j, _ in rows],
            "prompt_level": ["base"] * len(rows),
            "scale": ["likert7"] * len(rows),
            "n_items": [10] * len(rows),
            "bias": [b for _, b in rows],
            "mae": [1.0] * len(rows),
            "kripp_alpha": [0.5] * len(rows),
            "parse_failure_rate": [0.0] * len(rows),
        }
    )


def record(settings: Settings, run: str, at: datetime, made: dict, table: pl.DataFrame) -> None:
    judges = list(made)
    ledger = runs.run_rows("s", "rating", run, at, at + timedelta(minutes=1), judges, made)
    snap = runs.metric_snapshot("s", run, at + timedelta(minutes=1), "rating_metrics", table)
    warehouse.write_table(settings, ledger, "runs", f"s-{run}")
    warehouse.write_table(settings, snap, "metric_history", f"s-{run}")


def test_snapshot_is_long_and_names_rows() -> None:
    snap = runs.metric_snapshot("s", "r1", T0, "rating_metrics", metrics([("a", float("nan"))]))
    assert snap.height == 5  # one row per metric
    bias = snap.filter(pl.col("metric") == "bias")
    assert bias["row_key"][0] == "kind=judge · judge=a · prompt_level=base · scale=likert7"
    assert bias["value"][0] is None  # NaN is stored as null, not as a number


def test_a_second_readout_s_rows_are_named_apart_and_the_answer_s_keep_their_key() -> None:
    """readouts = ["answer", "expected"] doubles a study's designs: the expected rows get their
    own key (else the run-to-run comparison would pair answer with expected); the answer rows
    keep the key a study without readouts had."""
    two = pl.concat(
        [metrics([("a", 0.1)]).with_columns(readout=pl.lit(r)) for r in ("answer", "expected")]
    )
    keys = runs.metric_snapshot("s", "r1", T0, "rating_metrics", two)["row_key"].unique()
    old = runs.metric_snapshot("s", "r0", T0, "rating_metrics", metrics([("a", 0.1)]))
    assert sorted(keys) == [old["row_key"][0], old["row_key"][0] + " · readout=expected"]


def test_changes_since_the_last_run(tmp_path) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    record(settings, "r1", T0, {"a": {"ok": 40}}, metrics([("a", 0.5), ("old", 0.1)]))
    # next run: judge b is new (its calls), a's bias moved, "old" is gone
    made = {"a": {}, "b": {"ok": 38, "unparseable": 2}}
    record(settings, "r2", T0 + timedelta(days=1), made, metrics([("a", 0.25), ("b", -1.0)]))
    warehouse.publish_views(settings)
    ledger = warehouse.query(
        settings, "select run_id, judge, calls_made, calls_failed, new_judge from tbl_runs"
    )
    assert ledger.rows() == [
        ("r2", "a", 0, 0, False),
        ("r2", "b", 40, 2, True),
        ("r1", "a", 40, 0, True),
    ]
    changes = warehouse.query(
        settings,
        "select run_id, previous_run_id, change, row_key, metric, old_value, new_value "
        "from tbl_changes where metric in ('bias', 'calls_made')",
    )
    assert changes.select("run_id", "previous_run_id").unique().rows() == [("r2", "r1")]
    got = {
        (c, k.split(" · ")[1] if "·" in k else k, o, n) for _, _, c, k, _, o, n in changes.rows()
    }
    assert got == {
        ("new judge", "judge=b", None, 40.0),
        ("changed", "judge=a", 0.5, 0.25),
        ("new row", "judge=b", None, -1.0),
        ("removed", "judge=old", 0.1, None),
    }
    unchanged = warehouse.query(settings, "select * from tbl_changes where metric = 'mae'")
    assert set(unchanged["change"]) == {"new row", "removed"}  # a's mae stayed 1.0


def test_table_artifact_rows_are_json_safe() -> None:
    frame = pl.DataFrame({"judge": ["a"], "bias": [math.nan], "n": [3], "at": [T0], "ok": [True]})
    rows = table_rows(frame)
    assert rows == [
        {"judge": "a", "bias": None, "n": 3, "at": "2026-11-30 03:00:00.000000+00:00", "ok": True}
    ]
    json.dumps(rows, allow_nan=False)
    changes = pl.DataFrame(
        {"study": ["s"], "run_id": ["r2"], "finished_at": [T0], "change": ["changed"]}
        | {"metric": ["bias"], "old_value": [0.1], "new_value": [0.3]}
    )
    # what changed reads first in the UI; ids and timestamps move to the right
    assert list(table_rows(changes)[0]) == [
        *("change", "metric", "old_value", "new_value", "study", "run_id", "finished_at")
    ]
    assert artifact_key("Sentiment_v2", "tbl_rating_performance") == (
        "sentiment-v2-tbl-rating-performance"
    )
    assert artifact_key("progress", "Sentiment · smollm2-135m · shard 1/3") == (
        "progress-sentiment-smollm2-135m-shard-1-3"
    )
