"""plan: one row per planned judge call, (design, item, repeat), keyed by the call hash."""

import pandera.polars as pa


class Plan(pa.DataFrameModel):
    key: str = pa.Field(unique=True, str_length=64)
    study: str
    judge: str
    model: str
    task: str
    prompt_level: str
    prompt_version: str
    scale: str
    item_id: str
    repeat: int = pa.Field(ge=0)
    messages: str  # canonical JSON of the chat messages
    params: str  # canonical JSON of the answer-affecting request parameters

    class Config:
        strict = True
