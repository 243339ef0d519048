"""ratings: one row per individual human rating (for rater-level analyses)."""

import pandera.polars as pa


class Ratings(pa.DataFrameModel):
    item_id: str
    rater: int = pa.Field(ge=0)
    rating: float

    class Config:
        strict = True
