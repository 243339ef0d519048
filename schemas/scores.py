"""scores: every planned call with its status and, when ok, the score rescaled to 1–7."""

import pandera.polars as pa

from schemas.design import Design
from tasks.judging.parse import STATUSES

# the columns that name a design in every analysis table; a baseline classifier is a design
# of kind "baseline" with prompt_level "none" and its native scale, so views treat it alike
DESIGN = ["study", "kind", "judge", "model", "prompt_level", "scale"]
KINDS = ("judge", "baseline")


class Scores(Design):
    key: str  # the call's key; a baseline row's key hashes baseline and text
    kind: str = pa.Field(isin=KINDS)
    task: str
    prompt_version: str
    scale: str
    item_id: str
    repeat: int
    status: str = pa.Field(isin=[*STATUSES, "missing"])
    score: float = pa.Field(nullable=True)
    score_1to7: float = pa.Field(nullable=True, ge=1, le=7)
    human_1to7: float = pa.Field(ge=1, le=7)

    class Config:
        strict = True
        unique = ("study", "judge", "prompt_level", "scale", "item_id", "repeat")
