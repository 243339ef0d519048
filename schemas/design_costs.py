"""design_costs: per design, calls stored, requests sent, tokens and cost (litellm prices)."""

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

    class Config:
        strict = True
