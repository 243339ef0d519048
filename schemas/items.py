"""items: one row per rated text, with the human mean on the benchmark's own scale."""

import pandera.polars as pa


class Items(pa.DataFrameModel):
    item_id: str = pa.Field(unique=True)
    benchmark: str
    domain: str
    text: str = pa.Field(str_length={"min_value": 1})
    human_mean: float
    human_sd: float = pa.Field(ge=0, nullable=True)
    n_raters: int = pa.Field(ge=1)
    human_min: float
    human_max: float

    class Config:
        strict = True

    @pa.dataframe_check
    def mean_within_scale(cls, data) -> bool:
        import polars as pl

        return data.lazyframe.select(
            (pl.col("human_mean") >= pl.col("human_min"))
            & (pl.col("human_mean") <= pl.col("human_max"))
        )
