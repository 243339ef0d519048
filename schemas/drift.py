"""drift: per study × judge × design × canary batch (one batch per date bucket), how far the
canary's answers moved from the reference batch, against the judge's own run-to-run noise.

Ratings (on 1–7): `shift` is the mean over canary items of (batch mean − reference mean), with
a paired t CI at `level`; `noise` is the band ±z·s·√(2/(R·n)) that repeat noise alone keeps
the shift inside at that level (s: pooled within-item repeat SD of both batches, R repeats,
n items). Verdicts: `shift` is the flip rate (share of item × repeat pairs whose verdict
differs between the batches) with its t CI; `noise` is the upper bound at `level` of the flip
rate between repeats of one batch. `flagged`: the CI lies wholly outside the noise band.
The first batch is the reference of the others (compare = "first") or of the next only
("previous"); its own row has no shift."""

import pandera.polars as pa

from schemas.design import Design


class Drift(Design):
    scale: str
    reasoning_effort: str
    bucket: str  # the bucket's start, "2026-12-01" (days) or "2026-12-01T12:00" (hours)
    batch: int = pa.Field(ge=1)  # 1 = the first bucket seen
    reference: str = pa.Field(nullable=True)  # the bucket compared with; null in batch 1
    statistic: str = pa.Field(isin=["mean_shift", "flip_rate"])
    n_items: int = pa.Field(ge=0)  # canary items answered (ok) in this batch and the reference
    repeats: int = pa.Field(ge=0)  # ok repeats per item (harmonic mean, rounded down)
    shift: float = pa.Field(nullable=True)
    shift_lo: float = pa.Field(nullable=True)
    shift_hi: float = pa.Field(nullable=True)
    noise: float = pa.Field(nullable=True, ge=0)  # the noise band's half-width / upper bound
    noise_sd: float = pa.Field(nullable=True, ge=0)  # ratings: s; verdicts: within flip rate
    alpha: float = pa.Field(nullable=True)  # ratings: Krippendorff's α, batch vs reference
    accuracy_change: float = pa.Field(nullable=True)  # verdicts: accuracy − reference's
    level: float = pa.Field(gt=0, lt=1)
    flagged: bool

    class Config:
        strict = True
        unique = ("study", "judge", "prompt_level", "scale", "reasoning_effort", "bucket")
