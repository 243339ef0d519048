"""item_scores: one row per (design, item): the judge's mean over ok repeats beside the human."""

import pandera.polars as pa

from schemas.design import Design


class ItemScores(Design):
    kind: str
    scale: str
    item_id: str
    n_ok: int = pa.Field(ge=1)  # ok repeats averaged
    score_1to7: float = pa.Field(ge=1, le=7)
    score_sd: float = pa.Field(nullable=True, ge=0)  # sd over repeats (run-to-run noise)
    human_1to7: float = pa.Field(ge=1, le=7)
    readout: str  # how each call became a score (schemas.scores)

    class Config:
        strict = True
        unique = ("study", "judge", "prompt_level", "scale", "item_id", "readout")
