"""ensemble_holdout: per study × pool × strategy, the triple best on half A of the items, judged
on B."""

import pandera.polars as pa

from schemas.ensembles import POOLS, STRATEGIES


class EnsembleHoldout(pa.DataFrameModel):
    study: str
    pool: str = pa.Field(isin=POOLS)  # judges only, or judges+baselines
    strategy: str = pa.Field(isin=STRATEGIES)
    n_items_a: int = pa.Field(ge=0)
    n_items_b: int = pa.Field(ge=0)
    n_evaluated: int = pa.Field(ge=0)  # triples with items on half A
    members: str = pa.Field(nullable=True)  # the chosen triple, "judge/prompt_level/scale + …"
    abs_bias_a: float = pa.Field(nullable=True, ge=0)
    mae_a: float = pa.Field(nullable=True, ge=0)
    abs_bias_b: float = pa.Field(nullable=True, ge=0)
    mae_b: float = pa.Field(nullable=True, ge=0)
    triples_abs_bias_b: float = pa.Field(nullable=True, ge=0)  # mean over all evaluated triples
    best_single: str = pa.Field(nullable=True)  # of the designs in those triples, best on A
    single_abs_bias_a: float = pa.Field(nullable=True, ge=0)
    single_abs_bias_b: float = pa.Field(nullable=True, ge=0)

    class Config:
        strict = True
        unique = ("study", "pool", "strategy")
