"""Planned calls whose answers the store holds from another endpoint, said in one line per judge.

A judge's endpoint (its api_base, or the provider's default) is part of its call keys, so two
servers behind one model string never share answers unnoticed. Every plan row also carries
its `base_key` (the key without an endpoint), and every stored row its `endpoint` and
`base_key`; a planned call whose own key has no final answer while its base key has one made
through another endpoint is reported here, and made again.

With `reuse_across_endpoints = true` a study keys its calls by the base key, so answers
stored under the base key are reused directly: those from the provider's default endpoint,
from before endpoints counted (rows without an endpoint count as the provider default) and
from other studies with the flag on. Rows a study *without* the flag made through another
endpoint are keyed with that endpoint and are not reused, flag or not; the line says which
case it is.
"""

from __future__ import annotations

from collections.abc import Mapping

import polars as pl

from tasks.judging.parse import ERROR

DEFAULT = "provider default"  # how a null endpoint (the provider's default) reads in a line


def foreign_answers(
    plan: pl.DataFrame, stored: pl.DataFrame, endpoints: Mapping[str, str | None]
) -> pl.DataFrame:
    """Per judge: `calls`, the planned calls (distinct keys) whose key has no final stored row
    but whose base key has one made through another endpoint; `reusable`, how many of those
    are stored under the base key itself (reuse_across_endpoints would reuse them);
    `endpoints`, those other endpoints; `endpoint`, this judge's.

    `plan` has judge, key, base_key; `stored` is the newest row per key (store.latest_rows)
    with key, base_key, endpoint, status; `endpoints` maps judge → keys.endpoint(judge)."""
    final = stored.filter(pl.col("status") != ERROR).select(
        pl.col("key").alias("stored_key"),
        pl.coalesce("base_key", "key").alias("base_key"),
        pl.col("endpoint").fill_null(DEFAULT).alias("stored_endpoint"),
    )
    mine = pl.DataFrame(
        {"judge": list(endpoints), "endpoint": [e or DEFAULT for e in endpoints.values()]},
        schema={"judge": pl.String, "endpoint": pl.String},
    )
    found = (
        plan.select("judge", "key", "base_key")
        .unique()
        .join(final, left_on="key", right_on="stored_key", how="anti")
        .join(final, on="base_key")
        .join(mine, on="judge", how="left")
        .with_columns(pl.col("endpoint").fill_null(DEFAULT))
        .filter(pl.col("stored_endpoint") != pl.col("endpoint"))
    )
    return (
        found.group_by("judge", "endpoint")
        .agg(
            pl.col("key").n_unique().alias("calls"),
            pl.col("key")
            .filter(pl.col("stored_key") == pl.col("base_key"))
            .n_unique()
            .alias("reusable"),
            pl.col("stored_endpoint").unique().sort().alias("endpoints"),
        )
        .select("judge", "calls", "reusable", "endpoints", "endpoint")
        .sort("judge")
    )


def foreign_lines(frame: pl.DataFrame, study: str | None = None) -> list[str]:
    """One line per judge of `foreign_answers`: what is made again, through which endpoint,
    and whether reuse_across_endpoints would reuse it."""
    where = f"study {study!r}, " if study else ""
    lines = []
    for row in frame.iter_rows(named=True):
        calls, reusable = row["calls"], row["reusable"]
        if reusable == 0:
            hint = (
                "(a study without reuse_across_endpoints stored them under their endpoint's "
                "key, so that setting cannot reuse them)"
            )
        else:
            some = "them" if reusable == calls else f"{reusable} of them"
            hint = f"— set reuse_across_endpoints = true in [study] to reuse {some}"
        lines.append(
            f"{where}judge {row['judge']!r}: {calls} planned calls have stored answers made "
            f"through another endpoint ({', '.join(row['endpoints'])}); they are made again "
            f"through {row['endpoint']} {hint}"
        )
    return lines
