"""Tokens and money: per-design totals after a run, and an estimate before one.

Prices come from litellm's bundled price table (offline). Models it does not know
(local, mock, fake) get a null cost, never a made-up zero.
"""

from __future__ import annotations

import polars as pl

from schemas.design_costs import DesignCosts
from schemas.plan import DESIGN_CELL
from schemas.validate import validate
from tasks.judging.local_models import IN_PROCESS

DESIGN = DESIGN_CELL
CHARS_PER_TOKEN = 4  # rough, provider-independent; the estimate says so


def price(model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """USD for these tokens from litellm's price table; None for unknown models (an embedded
    model's without importing litellm: `judgelab plan` of local judges never needs it)."""
    if model.startswith(IN_PROCESS):
        return None
    import litellm

    litellm.suppress_debug_info = True  # no "Provider List" banner for unknown models
    try:
        p, c = litellm.cost_per_token(
            model=model, prompt_tokens=int(prompt_tokens), completion_tokens=int(completion_tokens)
        )
    except Exception:  # litellm raises a plain Exception for models missing from its map
        return None
    return float(p + c)


def design_costs(calls: pl.DataFrame) -> pl.DataFrame:
    """Per design: calls answered, requests sent, tokens and cost. `calls` = plan ⋈ judgments."""
    totals = (
        calls.unique([*DESIGN, "key"])  # items with identical text share one call
        .group_by(DESIGN)
        .agg(
            pl.len().alias("n_planned"),
            pl.col("status").is_not_null().sum().alias("n_stored"),
            pl.col("attempts").sum().alias("requests"),
            pl.col("prompt_tokens").sum().alias("prompt_tokens"),
            pl.col("completion_tokens").sum().alias("completion_tokens"),
        )
        .sort(DESIGN)
    )
    costs = [
        price(m, p, c)
        for m, p, c in totals.select("model", "prompt_tokens", "completion_tokens").iter_rows()
    ]
    table = totals.with_columns(
        pl.col("n_planned", "n_stored", "requests", "prompt_tokens", "completion_tokens").cast(
            pl.Int64
        ),
        pl.Series("cost_usd", costs, dtype=pl.Float64),
    )
    return validate(table, DesignCosts)


def estimate(plan: pl.DataFrame, max_tokens_col: str = "max_tokens") -> pl.DataFrame:
    """Per judge: estimated tokens (messages chars / 4, plus max_tokens out) and cost."""
    est = (
        plan.with_columns(
            (pl.col("messages").str.len_chars() // CHARS_PER_TOKEN).alias("prompt_tokens"),
            pl.col("params")
            .str.json_path_match("$.max_tokens")
            .cast(pl.Int64)
            .alias("completion_tokens"),
        )
        .group_by("judge", "model", maintain_order=True)
        .agg(
            pl.len().alias("calls"),
            pl.col("prompt_tokens").sum(),
            pl.col("completion_tokens").sum(),
        )
    )
    costs = [
        price(m, p, c)
        for m, p, c in est.select("model", "prompt_tokens", "completion_tokens").iter_rows()
    ]
    return est.with_columns(pl.Series("cost_usd", costs, dtype=pl.Float64))
