"""tone_versions: every text of the tone test — the original and each style rewrite — with
where it came from. Only versions that pass every rewrite check are scored."""

import pandera.polars as pa


class ToneVersions(pa.DataFrameModel):
    study: str
    version_id: str = pa.Field(unique=True)
    text_id: str
    axis: str  # "none" for an original
    pole: str  # "original" for an original
    rewriter: str  # "none", "lexical", or the LLM rewriter's name
    model: str  # the rewriter's model ("none" / "rules" for the others)
    status: str  # "ok", or the rewrite call's status (then `text` is null)
    text: str = pa.Field(nullable=True)  # the rewrite with its change list stripped
    raw: str = pa.Field(nullable=True)  # an LLM rewriter's whole answer

    class Config:
        strict = True
