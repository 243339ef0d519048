"""consensus: one row per study × item: how the voters (judges or designs) voted, and what that
makes the item."""

import pandera.polars as pa
import polars as pl

SUBSETS = ("full", "near", "ambiguous")  # by how strongly the voters agree on an item
# who votes: "model" one vote per judge (the majority of its designs), "design" one per design
VOTES = ("model", "design")


class Consensus(pa.DataFrameModel):
    study: str
    item_id: str
    votes: str = pa.Field(isin=list(VOTES))  # [study.analysis] consensus_votes
    n_designs: int = pa.Field(ge=0)  # designs with a resolved verdict on the item
    n_voters: int = pa.Field(ge=0)  # voters with a vote: judges ("model") or designs ("design")
    n_true: int = pa.Field(ge=0)  # of those, voters that said TRUE
    share_true: float = pa.Field(nullable=True, ge=0, le=1)  # null when n_voters = 0
    agreement: float = pa.Field(nullable=True, ge=0.5, le=1)  # max(share_true, 1 − share_true)
    subset: str = pa.Field(isin=list(SUBSETS))
    consensus_label: pl.Boolean = pa.Field(nullable=True)  # majority; null on a tie, < 2 voters
    reference: pl.Boolean = pa.Field(nullable=True)
    consensus_matches_reference: pl.Boolean = pa.Field(nullable=True)  # null if either is null

    class Config:
        strict = True
        unique = ("study", "item_id")

    @pa.dataframe_check
    def votes_within_voters(cls, data: pa.PolarsData) -> pl.LazyFrame:
        c = pl.col
        return data.lazyframe.select(
            (c("n_true") <= c("n_voters")) & (c("n_voters") <= c("n_designs"))
        )
