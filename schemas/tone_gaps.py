"""tone_gaps: per study × judge × prompt level × rewriter × axis, how much higher the
judge scores pole A of the same text than pole B, against its own repeat noise.

Multiple comparisons: the family of the Wilcoxon tests is every row of one study (judges ×
prompt levels × rewriters × axes); wilcoxon_p_holm / wilcoxon_p_bh are adjusted over it."""

import pandera.polars as pa
import polars as pl

# percentile-bootstrap 95% intervals over texts (null when not bootstrapped or < 2 texts)
TONE_CI_PAIRS = (
    ("gap_lo", "gap_hi"),
    ("gap_a_orig_lo", "gap_a_orig_hi"),
    ("gap_b_orig_lo", "gap_b_orig_hi"),
)


class ToneGaps(pa.DataFrameModel):
    study: str
    judge: str
    model: str
    prompt_level: str
    rewriter: str
    axis: str
    pole_a: str  # "high" / "native"
    pole_b: str  # "low" / "non_native"
    threshold: float  # pass mark of the verdict flips
    ok_rate_a: float = pa.Field(nullable=True, ge=0, le=1)  # ok calls of pole A, of planned
    ok_rate_b: float = pa.Field(nullable=True, ge=0, le=1)
    n_calls: int = pa.Field(ge=0)  # planned calls on the A and B versions of the texts
    n_failed: int = pa.Field(ge=0)  # … ended in an error, unparseable or out of range
    n_error: int = pa.Field(ge=0)  # … ended in a provider error
    n_texts: int = pa.Field(ge=0)  # texts whose A and B versions both have an ok score
    mean_a: float = pa.Field(nullable=True)  # mean over those texts of the version means
    mean_b: float = pa.Field(nullable=True)
    gap: float = pa.Field(nullable=True)  # mean over texts of (mean A − mean B)
    gap_lo: float = pa.Field(nullable=True)
    gap_hi: float = pa.Field(nullable=True)
    wilcoxon_p: float = pa.Field(nullable=True, ge=0, le=1)  # paired signed-rank, two-sided
    wilcoxon_p_holm: float = pa.Field(nullable=True, ge=0, le=1)  # Holm over the study's rows
    wilcoxon_p_bh: float = pa.Field(nullable=True, ge=0, le=1)  # Benjamini–Hochberg, same family
    rank_biserial: float = pa.Field(nullable=True, ge=-1, le=1)  # positive: A scored higher
    noise_sd: float = pa.Field(nullable=True, ge=0)  # pooled within-version repeat SD
    repeats_hmean: float = pa.Field(nullable=True, gt=0)  # harmonic mean of ok repeats/version
    noise_yardstick: float = pa.Field(nullable=True, ge=0)  # noise_sd × sqrt(2 / repeats_hmean)
    gap_to_noise: float = pa.Field(nullable=True)  # gap / noise_yardstick
    distinguishable: bool = pa.Field(nullable=True)  # CI excludes 0 and |gap| > yardstick
    n_a_wins: int = pa.Field(ge=0)  # texts with mean A > mean B
    n_b_wins: int = pa.Field(ge=0)
    n_ties: int = pa.Field(ge=0)
    win_ratio: float = pa.Field(nullable=True, ge=0)  # n_a_wins / n_b_wins; null if no B win
    n_flip_a_pass: int = pa.Field(ge=0)  # A's mean passes the threshold, B's does not
    n_flip_b_pass: int = pa.Field(ge=0)  # B's passes, A's does not
    share_flip_a_pass: float = pa.Field(nullable=True, ge=0, le=1)  # of n_texts
    share_flip_b_pass: float = pa.Field(nullable=True, ge=0, le=1)
    n_a_orig: int = pa.Field(ge=0)  # texts with an ok A version and an ok original
    gap_a_orig: float = pa.Field(nullable=True)  # mean over texts of (mean A − mean original)
    gap_a_orig_lo: float = pa.Field(nullable=True)
    gap_a_orig_hi: float = pa.Field(nullable=True)
    n_b_orig: int = pa.Field(ge=0)
    gap_b_orig: float = pa.Field(nullable=True)
    gap_b_orig_lo: float = pa.Field(nullable=True)
    gap_b_orig_hi: float = pa.Field(nullable=True)

    class Config:
        strict = True
        unique = ("study", "judge", "prompt_level", "rewriter", "axis")

    @pa.dataframe_check
    def intervals_ordered(cls, data: pa.PolarsData) -> pl.LazyFrame:
        return data.lazyframe.select(
            pl.all_horizontal(
                (pl.col(lo) <= pl.col(hi)).fill_null(True) for lo, hi in TONE_CI_PAIRS
            )
        )
