"""Tokens and money: per-design totals after a run, and an estimate before one.

Prices come from litellm's bundled price map (offline), per token: input, output, prompt-cache
read and write, and the batch API's input and output. Models it does not know (local, mock,
fake) get a null cost, never a made-up zero; so does a batch price the map does not list.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import polars as pl

from schemas.design_costs import DesignCosts
from schemas.plan import DESIGN_CELL
from schemas.validate import validate
from tasks.judging.local_models import IN_PROCESS

DESIGN = DESIGN_CELL
CHARS_PER_TOKEN = 4  # rough, provider-independent; the estimate says so


@dataclass(frozen=True)
class Rates:
    """USD per token for one model, as litellm's price map lists it (the key after each
    field); None: the map does not say."""

    provider: str  # litellm_provider: which CACHE_RULES apply
    input: float  # input_cost_per_token
    output: float  # output_cost_per_token
    cache_read: float | None  # cache_read_input_token_cost
    cache_write: float | None  # cache_creation_input_token_cost
    batch_input: float | None  # input_cost_per_token_batches
    batch_output: float | None  # output_cost_per_token_batches
    batch_cache_read: float | None  # cache_read_input_token_cost_batches
    batch_cache_write: float | None  # cache_creation_input_token_cost_batches
    cache_min_tokens: int | None  # prompt_cache_min_tokens: shortest prefix the cache keeps

    def cost(
        self,
        prompt: int,
        completion: int,
        cached: int = 0,
        written: int = 0,
        batch: bool = False,
    ) -> float | None:
        """USD for one set of calls. `prompt` counts every prompt token, the cached and
        written ones included, as litellm's usage does (OpenAI's prompt_tokens include
        cached_tokens; litellm adds Anthropic's cache reads and writes to input_tokens).

        Online: cached tokens cost the cache-read rate, written ones the cache-write rate
        (each the input rate when the map lists none, as litellm prices them), the rest the
        input rate. In a batch: the batch rates, None when the map lists none (never an
        assumed half price); a cached or written token costs the map's batch cache rate, or
        the batch input rate when it lists none (litellm's batch_cost_calculator does the
        same: a cache discount on top of the batch one is not assumed)."""
        if batch:
            if self.batch_input is None or self.batch_output is None:
                return None
            input_rate, output_rate = self.batch_input, self.batch_output
            read = self.batch_input if self.batch_cache_read is None else self.batch_cache_read
            write = self.batch_input if self.batch_cache_write is None else self.batch_cache_write
        else:
            input_rate, output_rate = self.input, self.output
            read = self.input if self.cache_read is None else self.cache_read
            write = self.input if self.cache_write is None else self.cache_write
        fresh = max(prompt - cached - written, 0)
        return fresh * input_rate + cached * read + written * write + completion * output_rate


def _rate(info: dict, key: str) -> float | None:
    value = info.get(key)
    return float(value) if value is not None else None


@functools.lru_cache(maxsize=256)
def rates(model: str) -> Rates | None:
    """The model's rates from litellm's price map; None for a model it does not list (and for
    an embedded model without importing litellm: `judgelab plan` of local judges needs none)."""
    if model.startswith(IN_PROCESS):
        return None
    import litellm

    litellm.suppress_debug_info = True  # no "Provider List" banner for unknown models
    try:
        info = litellm.get_model_info(model)
    except Exception:  # litellm raises a plain Exception for models missing from its map
        return None
    inp, out = _rate(info, "input_cost_per_token"), _rate(info, "output_cost_per_token")
    if inp is None or out is None:
        return None
    minimum = info.get("prompt_cache_min_tokens")
    return Rates(
        provider=str(info.get("litellm_provider") or model.split("/", 1)[0]),
        input=inp,
        output=out,
        cache_read=_rate(info, "cache_read_input_token_cost"),
        cache_write=_rate(info, "cache_creation_input_token_cost"),
        batch_input=_rate(info, "input_cost_per_token_batches"),
        batch_output=_rate(info, "output_cost_per_token_batches"),
        batch_cache_read=_rate(info, "cache_read_input_token_cost_batches"),
        batch_cache_write=_rate(info, "cache_creation_input_token_cost_batches"),
        cache_min_tokens=int(minimum) if minimum is not None else None,
    )


def price(
    model: str,
    prompt_tokens: int,
    completion_tokens: int,
    cached_tokens: int = 0,
    cache_write_tokens: int = 0,
    batch: bool = False,
) -> float | None:
    """USD for these tokens (Rates.cost); None for a model litellm's map does not list, or a
    batch price it does not list."""
    r = rates(model)
    if r is None:
        return None
    return r.cost(
        int(prompt_tokens),
        int(completion_tokens),
        int(cached_tokens or 0),
        int(cache_write_tokens or 0),
        batch,
    )


def _known_sum(column: str) -> pl.Expr:
    """The sum of the rows that report a value; null when none does (unknown, not 0)."""
    return pl.when(pl.col(column).is_not_null().any()).then(pl.col(column).sum())


def design_costs(calls: pl.DataFrame) -> pl.DataFrame:
    """Per design: calls answered, requests sent, tokens and cost, the calls a provider batch
    answered (a non-null batch_id) priced at the batch rates and apart from the online ones.
    `calls` = plan ⋈ judgments (key, status, attempts, prompt_tokens, completion_tokens,
    cached_tokens, cache_write_tokens, batch_id)."""
    in_batch = pl.col("batch_id").is_not_null()
    online = pl.col("batch_id").is_null()
    totals = (
        calls.unique([*DESIGN, "key"])  # items with identical text share one call
        .group_by(DESIGN)
        .agg(
            pl.len().alias("n_planned"),
            pl.col("status").is_not_null().sum().alias("n_stored"),
            pl.col("attempts").sum().alias("requests"),
            pl.col("prompt_tokens").sum().alias("prompt_tokens"),
            pl.col("completion_tokens").sum().alias("completion_tokens"),
            _known_sum("cached_tokens").alias("cached_tokens"),
            _known_sum("cache_write_tokens").alias("cache_write_tokens"),
            in_batch.sum().alias("batch_calls"),
            pl.col("prompt_tokens").filter(in_batch).sum().alias("batch_prompt_tokens"),
            pl.col("completion_tokens").filter(in_batch).sum().alias("batch_completion_tokens"),
            # what pricing needs apart: each mode's cache reads and writes
            pl.col("cached_tokens").filter(online).sum().alias("_online_cached"),
            pl.col("cache_write_tokens").filter(online).sum().alias("_online_written"),
            pl.col("cached_tokens").filter(in_batch).sum().alias("_batch_cached"),
            pl.col("cache_write_tokens").filter(in_batch).sum().alias("_batch_written"),
        )
        .sort(DESIGN)
    )
    online_costs, batch_costs = [], []
    for row in totals.iter_rows(named=True):
        r = rates(row["model"])
        if r is None:
            online_costs.append(None)
            batch_costs.append(None)
            continue
        online_costs.append(
            r.cost(
                (row["prompt_tokens"] or 0) - (row["batch_prompt_tokens"] or 0),
                (row["completion_tokens"] or 0) - (row["batch_completion_tokens"] or 0),
                row["_online_cached"] or 0,
                row["_online_written"] or 0,
            )
        )
        batch_costs.append(
            0.0  # no batch call: nothing paid at the batch price, listed or not
            if row["batch_calls"] == 0
            else r.cost(
                row["batch_prompt_tokens"] or 0,
                row["batch_completion_tokens"] or 0,
                row["_batch_cached"] or 0,
                row["_batch_written"] or 0,
                batch=True,
            )
        )
    counts = [
        "n_planned",
        "n_stored",
        "requests",
        "prompt_tokens",
        "completion_tokens",
        "cached_tokens",
        "cache_write_tokens",
        "batch_calls",
        "batch_prompt_tokens",
        "batch_completion_tokens",
    ]
    table = totals.with_columns(
        pl.col(counts).cast(pl.Int64),
        pl.Series("online_cost_usd", online_costs, dtype=pl.Float64),
        pl.Series("batch_cost_usd", batch_costs, dtype=pl.Float64),
    ).with_columns(
        # the price paid: null when either part is unknown (a sum would hide the unknown part)
        (pl.col("online_cost_usd") + pl.col("batch_cost_usd")).alias("cost_usd")
    )
    return validate(table.select(list(DesignCosts.to_schema().columns)), DesignCosts)


@dataclass(frozen=True)
class CacheRule:
    """How a provider's prompt cache serves a prefix that repeats, as its documentation states
    (`source`): a prefix shorter than `min_tokens` is never cached; a longer one is served in
    steps of `step` tokens past the minimum (OpenAI: 128; Anthropic: up to its breakpoint)."""

    min_tokens: int
    step: int
    source: str

    def cacheable(self, prefix_tokens: int) -> int:
        """Tokens of a repeated `prefix_tokens`-long prefix the cache serves."""
        if prefix_tokens < self.min_tokens:
            return 0
        return prefix_tokens - (prefix_tokens - self.min_tokens) % self.step


OPENAI_CACHE = "https://platform.openai.com/docs/guides/prompt-caching"
ANTHROPIC_CACHE = "https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching"
# Per litellm provider, for models whose map entry has no prompt_cache_min_tokens (the map's
# figure wins when it has one: it lists Anthropic's per-model minimums, 1,024 to 4,096).
# OpenAI (and Azure OpenAI, same models) caches automatically from 1,024 prompt tokens, hits in
# increments of 128; Anthropic caches up to a cache_control breakpoint (issue 28: set after a
# long system prompt), from 1,024 tokens on most models. A provider not listed here (Gemini,
# Mistral, ...) gets no expected cache hits: its figure is the batch one.
CACHE_RULES: dict[str, CacheRule] = {
    "openai": CacheRule(1024, 128, OPENAI_CACHE),
    "azure": CacheRule(1024, 128, OPENAI_CACHE),
    "anthropic": CacheRule(1024, 1, ANTHROPIC_CACHE),
}


def cache_rule(r: Rates) -> CacheRule | None:
    """The prompt-cache rule for a model's rates; None: no rule known (no hits expected)."""
    rule = CACHE_RULES.get(r.provider)
    if rule is None or r.cache_min_tokens is None:
        return rule
    return CacheRule(r.cache_min_tokens, rule.step, "litellm's price map (prompt_cache_min_tokens)")


ESTIMATES = ["online_usd", "batch_usd", "batch_cache_usd"]


def estimate(plan: pl.DataFrame) -> pl.DataFrame:
    """Per judge: estimated tokens and cost of `plan`'s calls (one row per call), three ways:
    online, with the batch API, and with the batch API plus the prompt cache's expected hits.

    Prompt tokens ≈ the messages' characters / 4, completion tokens = max_tokens. A design's
    system prompt is the prefix all its calls share: the first call writes it to the cache,
    every later one reads the part its provider caches (CACHE_RULES), assuming the calls of a
    design run back to back (the shard order and batch chunks keep them so) while the cache
    is warm. cached_tokens: those expected reads. A null cost: the model (or its batch
    price) is not in litellm's map."""
    system = pl.col("messages").str.json_path_match("$[0].content")
    calls = plan.with_columns(
        (pl.col("messages").str.len_chars() // CHARS_PER_TOKEN).alias("prompt_tokens"),
        pl.col("params")
        .str.json_path_match("$.max_tokens")
        .cast(pl.Int64)
        .alias("completion_tokens"),
        pl.when(pl.col("messages").str.json_path_match("$[0].role") == "system")
        .then(system)
        .otherwise(pl.lit(""))
        .alias("system"),
    )
    prefixes = calls.group_by("judge", "model", "system", maintain_order=True).agg(
        pl.len().alias("calls"),
        pl.col("prompt_tokens").sum(),
        pl.col("completion_tokens").sum(),
    )
    rows: dict[str, dict] = {}
    for g in prefixes.iter_rows(named=True):
        row = rows.setdefault(
            g["judge"],
            {"judge": g["judge"], "model": g["model"], "calls": 0, "prompt_tokens": 0,
             "completion_tokens": 0, "cached_tokens": 0, **dict.fromkeys(ESTIMATES, 0.0)},
        )  # fmt: skip
        row["calls"] += g["calls"]
        row["prompt_tokens"] += g["prompt_tokens"]
        row["completion_tokens"] += g["completion_tokens"] or 0
        r = rates(g["model"])
        rule = cache_rule(r) if r else None
        prefix = rule.cacheable(len(g["system"]) // CHARS_PER_TOKEN) if rule else 0
        cached = prefix * (g["calls"] - 1)
        row["cached_tokens"] += cached
        p, c = g["prompt_tokens"], g["completion_tokens"] or 0
        costs = (
            (r.cost(p, c), r.cost(p, c, batch=True), r.cost(p, c, cached, prefix, batch=True))
            if r
            else (None, None, None)
        )
        for name, cost in zip(ESTIMATES, costs, strict=True):
            row[name] = None if cost is None or row[name] is None else row[name] + cost
    schema = {
        "judge": pl.String,
        "model": pl.String,
        "calls": pl.Int64,
        "prompt_tokens": pl.Int64,
        "completion_tokens": pl.Int64,
        "cached_tokens": pl.Int64,
        **dict.fromkeys(ESTIMATES, pl.Float64),
    }
    return pl.DataFrame(list(rows.values()), schema=schema, orient="row")


def estimate_totals(est: pl.DataFrame) -> dict[str, float | int | None]:
    """The three figures summed over the judges that have all three (`priced`: how many of
    `judges` do), and batch / online over the same judges (None when none has them). A
    judge left out is named by the per-judge table ('n/a'), never counted as 0."""
    priced = est.drop_nulls(ESTIMATES)
    # nothing missing costs nothing; judges that are all unpriced cost an unknown amount
    known = priced.height > 0 or est.height == 0
    totals: dict[str, float | int | None] = {
        name: float(priced[name].sum()) if known else None for name in ESTIMATES
    }
    online, batch = totals["online_usd"], totals["batch_usd"]
    totals["batch_ratio"] = batch / online if online and batch is not None else None
    totals["priced"] = priced.height
    totals["judges"] = est.height
    return totals


def usd(value: float | None) -> str:
    """A dollar figure for people: 'n/a' when unknown, never 0."""
    if value is None:
        return "n/a"
    return f"${value:,.2f}" if value >= 1 else f"${value:.4f}"
