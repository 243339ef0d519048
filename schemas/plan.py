"""plan: one row per (design, item, repeat), with the hash key of the call that answers it.

Two items with identical text get identical messages, hence one key: the judge sees the
same request, so one call answers both (exactly once means per request, not per row).
`base_key` is the key without the endpoint: it finds answers another server gave.
"""

import pandera.polars as pa

# the columns that name a design cell (judge × prompt level × scale × reasoning effort)
DESIGN_CELL = ["study", "judge", "model", "prompt_level", "scale", "reasoning_effort"]
# plan columns that name a call's design cell, item and repeat (without the big JSON columns)
DESIGN_COLUMNS = [
    "key",
    "study",
    "judge",
    "model",
    "task",
    "prompt_level",
    "prompt_version",
    "scale",
    "reasoning_effort",
    "item_id",
    "repeat",
]


class Plan(pa.DataFrameModel):
    key: str = pa.Field(str_length=64)  # with the judge's endpoint unless reuse_across_endpoints
    base_key: str = pa.Field(str_length=64)  # the same call's key without any endpoint
    study: str
    judge: str
    model: str
    task: str
    prompt_level: str
    prompt_version: str
    scale: str
    reasoning_effort: str  # the effort sent, "default" (none sent) or "n/a" (no such control)
    item_id: str
    repeat: int = pa.Field(ge=0)
    messages: str  # canonical JSON of the chat messages
    params: str  # canonical JSON of the answer-affecting request parameters

    class Config:
        strict = True
        unique = (
            "study",
            "judge",
            "prompt_level",
            "scale",
            "reasoning_effort",
            "item_id",
            "repeat",
        )
