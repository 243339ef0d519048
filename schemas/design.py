"""The columns that name a design, shared by every per-design table of every study type: the
same concept has the same name everywhere (a judge is a model plus its parameters, or a
classifier baseline's name; the prompt level is the template's detail, or a tone prompt
variant). A table's schema adds its type's own factors (scale, reasoning effort, ...)."""

import pandera.polars as pa


class Design(pa.DataFrameModel):
    study: str
    judge: str
    model: str
    prompt_level: str
