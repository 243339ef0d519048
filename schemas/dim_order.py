"""dim_order: each sortable dimension's values with their position (tasks.dims, every publish)."""

import pandera.polars as pa


class DimOrder(pa.DataFrameModel):
    dimension: str  # e.g. "scale", "prompt_level", "axis", "subset"
    value: str
    position: int = pa.Field(ge=1)  # 1 = first; a value not listed sorts after all (dims.UNKNOWN)

    class Config:
        strict = True
        unique = ("dimension", "value")
