"""design_costs: per design, calls stored, requests sent, tokens and cost (litellm prices),
online and provider-batch calls apart, with the prompt tokens the provider's cache served."""

import pandera.polars as pa

from schemas.design import Design


class DesignCosts(Design):
    scale: str
    reasoning_effort: str
    n_planned: int = pa.Field(ge=0)
    n_stored: int = pa.Field(ge=0)
    requests: int = pa.Field(ge=0, nullable=True)  # every request sent: retries and re-asks
    prompt_tokens: int = pa.Field(ge=0, nullable=True)
    completion_tokens: int = pa.Field(ge=0, nullable=True)
    cost_usd: float = pa.Field(ge=0, nullable=True)  # null: model not in litellm's price table
    # appended (issue 28); parts written before them are upgraded by warehouse.ADDED
    cached_tokens: int = pa.Field(ge=0, nullable=True)  # prompt tokens read from the cache
    cache_write_tokens: int = pa.Field(ge=0, nullable=True)  # prompt tokens written to it
    batch_calls: int = pa.Field(ge=0)  # stored calls a provider batch answered (batch price)
    batch_prompt_tokens: int = pa.Field(ge=0, nullable=True)
    batch_completion_tokens: int = pa.Field(ge=0, nullable=True)
    online_cost_usd: float = pa.Field(ge=0, nullable=True)  # the online calls' price
    batch_cost_usd: float = pa.Field(ge=0, nullable=True)  # the batch calls' price

    class Config:
        strict = True
