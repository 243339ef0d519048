"""scores: every planned call with its status and, when ok, the score rescaled to 1–7."""

import pandera.polars as pa
import polars as pl

from schemas.design import Design
from tasks.judging.parse import STATUSES

# the columns that name a design in every analysis table; a baseline classifier is a design
# of kind "baseline" with prompt_level "none" and its native scale, so views treat it alike
# (readout last: how a stored call became a score, judgelab.study.Analysis.readouts)
DESIGN = ["study", "kind", "judge", "model", "prompt_level", "scale", "readout"]
KINDS = ("judge", "baseline")
READOUTS = ("answer", "expected")


def with_readout(frame: pl.DataFrame) -> pl.DataFrame:
    """A frame without a readout column (a warehouse part or an inline frame from before
    readouts existed) read as what it was: the parsed answer."""
    if "readout" in frame.collect_schema().names():
        return frame
    return frame.with_columns(pl.lit("answer").alias("readout"))


def readout_label(readout: str | None) -> str:
    """What a design's label adds for its readout: " · expected" for a readout other than the
    parsed answer; nothing for the answer (or a row from before readouts)."""
    return "" if readout in (None, "answer") else f" · {readout}"


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
    # "answer": the parsed answer; "expected": Σ p·v over the call's stored distribution
    # (tasks/judging/distribution.py). A baseline's is "answer".
    readout: str = pa.Field(isin=READOUTS)

    class Config:
        strict = True
        unique = ("study", "judge", "prompt_level", "scale", "item_id", "repeat", "readout")
