"""consensus: one row per study × item: how the designs voted, and what that makes the item."""

import pandera.polars as pa
import polars as pl

SUBSETS = ("full", "near", "ambiguous")  # by how strongly the designs agree on an item


class Consensus(pa.DataFrameModel):
    study: str
    item_id: str
    n_designs: int = pa.Field(ge=0)  # designs with a resolved verdict on the item
    n_true: int = pa.Field(ge=0)  # of those, designs that said TRUE
    share_true: float = pa.Field(nullable=True, ge=0, le=1)  # null when n_designs = 0
    agreement: float = pa.Field(nullable=True, ge=0.5, le=1)  # max(share_true, 1 − share_true)
    subset: str = pa.Field(isin=list(SUBSETS))
    consensus_label: pl.Boolean = pa.Field(nullable=True)  # majority; null on a tie or < 2 designs
    reference: pl.Boolean = pa.Field(nullable=True)
    consensus_matches_reference: pl.Boolean = pa.Field(nullable=True)  # null if either is null

    class Config:
        strict = True
        unique = ("study", "item_id")

    @pa.dataframe_check
    def true_within_designs(cls, data: pa.PolarsData) -> pl.LazyFrame:
        return data.lazyframe.select(pl.col("n_true") <= pl.col("n_designs"))
