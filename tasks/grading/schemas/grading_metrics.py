"""grading_metrics: per design (judge × prompt level × scale) the grades against the labels, on
1–7 (tasks/rating/metrics.py: bias, MAE, Wilcoxon, Krippendorff's α, bootstrap CIs)."""

from schemas.rating_metrics import RatingMetrics


class GradingMetrics(RatingMetrics):
    pass
