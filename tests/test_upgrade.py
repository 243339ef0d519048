"""A warehouse written before the tone tables took the shared names (evaluator → judge,
prompt_variant → prompt_level): its views publish again, and the next run is compared with the
old one row by row instead of listing every tone row as removed and new."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import polars as pl

from judgelab.settings import Settings
from tasks import runs, warehouse

T0 = datetime(2026, 11, 30, 3, 0, tzinfo=UTC)
OLD_KEY = "evaluator=e · prompt_variant=plain · rewriter=lexical · axis=confidence"


def _gaps(gap: float) -> pl.DataFrame:
    """One tone_gaps row (today's columns); every other column null."""
    values = {"study": "t", "judge": "e", "model": "m", "prompt_level": "plain",
              "rewriter": "lexical", "axis": "confidence", "n_texts": 8, "gap": gap}  # fmt: skip
    schema = warehouse.table_schema("tone_gaps").to_schema().columns
    return pl.DataFrame(
        [pl.Series(c, [values.get(c)], dtype=col.dtype.type) for c, col in schema.items()]
    )


def _record(settings: Settings, run: str, at: datetime, gaps: pl.DataFrame) -> pl.DataFrame:
    done = at + timedelta(minutes=1)
    ledger = runs.run_rows("t", "tone", run, at, done, ["e"], {"e": {"ok": 16}})
    warehouse.write_table(settings, ledger, "runs", f"t-{run}")
    snap = runs.metric_snapshot("t", run, done, "tone_gaps", gaps)
    warehouse.write_table(settings, snap, "metric_history", f"t-{run}")
    return snap


def test_old_tone_parts_and_ledger_keys_are_renamed(tmp_path) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    # the earlier version: old column names in the part, old row keys in the ledger
    snap = _record(settings, "r1", T0, _gaps(0.5))
    old_snap = snap.with_columns(pl.lit(OLD_KEY).alias("row_key"))
    warehouse.write_table(settings, old_snap, "metric_history", "t-r1")
    old_part = _gaps(0.5).rename({"judge": "evaluator", "prompt_level": "prompt_variant"})
    warehouse.write_table(settings, old_part, "tone_gaps", "t")  # breaks publishing as it is

    changed = warehouse.upgrade_parts(settings)
    assert [p.parent.name for p in changed] == ["tone_gaps"]
    assert warehouse.upgrade_parts(settings) == []  # once only

    _record(settings, "r2", T0 + timedelta(days=1), _gaps(0.25))  # the first run after it
    warehouse.publish_views(settings)
    assert warehouse.query(settings, "select judge, prompt_level from tbl_tone_gaps").rows() == [
        ("e", "plain")
    ]
    changes = warehouse.query(
        settings, "select change, row_key, metric, old_value, new_value from tbl_changes"
    )
    assert changes.rows() == [
        ("changed", "judge=e · prompt_level=plain · rewriter=lexical · axis=confidence", "gap",
         0.5, 0.25)
    ]  # fmt: skip


def test_only_old_tone_row_keys_read_new(tmp_path) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    history = pl.DataFrame(
        {
            "study": "t",
            "run_id": "r",
            "finished_at": T0,
            "source": ["tone_gaps", "tone_gaps", "rating_metrics"],
            "row_key": [OLD_KEY, "judge=evaluator= · prompt_level=x", "judge=evaluator=x"],
            "metric": "gap",
            "value": 1.0,
        }
    )
    warehouse.write_table(settings, history, "metric_history", "t-r")
    warehouse.publish_views(settings)
    keys = warehouse.query(settings, "select row_key from stg_metric_history")["row_key"]
    assert keys.to_list() == [
        "judge=e · prompt_level=plain · rewriter=lexical · axis=confidence",
        "judge=evaluator= · prompt_level=x",
        "judge=evaluator=x",
    ]


def _today(table: str, **values: object) -> pl.DataFrame:
    """One row of `table` with today's columns, every other column null."""
    schema = warehouse.table_schema(table).to_schema().columns
    return pl.DataFrame(
        [pl.Series(c, [values.get(c)], dtype=col.dtype.type) for c, col in schema.items()]
    )


def test_parts_written_before_the_ensemble_subset_and_the_table8_test_publish(tmp_path) -> None:
    """An ensembles part without `subset` (before the outlier-scale variant) and a
    threshold_shares part without Table 8's test columns: their rows read as subset 'all' and
    as untested, and the views publish."""
    settings = Settings(data_dir=tmp_path / "data")
    ens = _today("ensembles", study="r", subset="all", pool="judges", strategy="scale", size=3)
    warehouse.write_table(settings, ens.drop("subset"), "ensembles", "r")
    shares = _today("threshold_shares", study="r", kind="judge", subset="all", grouping="all")
    shares = shares.with_columns(group=pl.lit("(all)"), mean_abs_bias=pl.lit(0.1))
    warehouse.write_table(
        settings, shares.drop("abs_bias_h", "abs_bias_df", "abs_bias_p"), "threshold_shares", "r"
    )

    changed = warehouse.upgrade_parts(settings)
    assert sorted(p.parent.name for p in changed) == ["ensembles", "threshold_shares"]
    assert warehouse.upgrade_parts(settings) == []  # once only

    warehouse.publish_views(settings)
    assert warehouse.query(settings, "select subset, strategy from tbl_ensembles").rows() == [
        ("all", "scale")
    ]
    assert warehouse.query(
        settings, "select mean_abs_bias, abs_bias_df, abs_bias_p from tbl_bias_summary"
    ).rows() == [(0.1, None, None)]


def test_pairwise_agreement_parts_from_before_human_ties_publish(tmp_path) -> None:
    """A pairwise_agreement part written before human ties (no n_human_ties, n_untied_units):
    it could hold no human tie, so its untied units are its labelled units without a combined
    tie, and the view publishes (it failed with 'column n_human_ties not found')."""
    settings = Settings(data_dir=tmp_path / "data")
    agreement = _today("pairwise_agreement", study="p", judge="j", prompt_level="base")
    agreement = agreement.with_columns(
        n_labelled_units=pl.lit(10, pl.Int64), n_combined_ties=pl.lit(3, pl.Int64)
    )
    old = agreement.drop("n_human_ties", "n_untied_units")
    warehouse.write_table(settings, old, "pairwise_agreement", "p")
    (changed,) = warehouse.upgrade_parts(settings)
    assert changed.parent.name == "pairwise_agreement"
    warehouse.publish_views(settings)
    rows = warehouse.query(
        settings, "select n_human_ties, n_untied_units from tbl_pairwise_agreement"
    )
    assert rows.rows() == [(0, 7)]


def test_design_costs_parts_from_before_batches_and_caching_publish(tmp_path) -> None:
    """A design_costs part written before the batch and cache columns (issue 28): every call
    it counted was online, so its batch columns read 0 and its online price is its cost (an
    unpriced model's stays null); its cache use is unknown (null, not 0)."""
    settings = Settings(data_dir=tmp_path / "data")
    new = ["cached_tokens", "cache_write_tokens", "batch_calls", "batch_prompt_tokens",
           "batch_completion_tokens", "online_cost_usd", "batch_cost_usd"]  # fmt: skip
    for judge, cost in [("priced", 1.5), ("unpriced", None)]:
        old = _today(
            "design_costs", study="c", judge=judge, model="m", prompt_level="base",
            scale="likert7", reasoning_effort="default", n_planned=4, n_stored=4, requests=5,
            prompt_tokens=400, completion_tokens=40, cost_usd=cost,
        ).drop(new)  # fmt: skip
        warehouse.write_table(settings, old, "design_costs", f"c-{judge}")
    changed = warehouse.upgrade_parts(settings)
    assert sorted(p.name for p in changed) == ["c-priced.parquet", "c-unpriced.parquet"]
    assert warehouse.upgrade_parts(settings) == []  # once only
    warehouse.publish_views(settings)
    got = warehouse.query(
        settings,
        f"select judge, cost_usd, {', '.join(new)} from tbl_design_cost "
        "where scale <> '(all)' order by judge",
    )
    assert got.rows() == [
        ("priced", 1.5, None, None, 0, 0, 0, 1.5, 0.0),
        ("unpriced", None, None, None, 0, 0, 0, None, None),
    ]
