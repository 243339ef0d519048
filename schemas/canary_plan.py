"""canary_plan: one row per (canary bucket, design, canary item, repeat), with the key of the
call that answers it; the bucket is part of every key, so each bucket pays one fresh batch
(tasks/canary.py). One part per study and bucket; the study's `plan` never holds these."""

from schemas.plan import Plan


class CanaryPlan(Plan):
    bucket: str  # the date bucket the keys carry (judgelab.clock.bucket)

    class Config(Plan.Config):
        unique = ("bucket", *Plan.Config.unique)
