"""baselines: the offline classifiers a study scores beside its judges, with report caveats."""

import pandera.polars as pa


class Baselines(pa.DataFrameModel):
    study: str
    judge: str  # the baseline's name, as in the judge column of every analysis table
    model: str
    task: str
    scale: str  # its native output, mapped linearly from [native_min, native_max] onto 1–7
    native_min: float
    native_max: float
    note: str

    class Config:
        strict = True
        unique = ("study", "judge")
