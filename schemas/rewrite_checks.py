"""rewrite_checks: one row per style rewrite (version) × check; a version that fails any check
is left out of scoring, and its failing rows say why."""

import pandera.polars as pa


class RewriteChecks(pa.DataFrameModel):
    version_id: str
    text_id: str
    axis: str  # a style axis (prompts/tone/axes/<axis>.toml)
    pole: str  # a pole of that axis
    rewriter: str  # "lexical", or an LLM rewriter's name
    check: str  # facts, length, direction, mtld (tasks.tone.checks); similarity is added later
    passed: bool
    value: float = pa.Field(nullable=True)  # the measured quantity; see tasks.tone.checks
    detail: str  # what was measured or what went wrong ("" when nothing to say)

    class Config:
        strict = True
        unique = ("version_id", "check")
