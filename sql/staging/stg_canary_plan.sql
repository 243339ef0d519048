-- Canary calls: one row per (study, date bucket, design, canary item, repeat), keyed by the
-- call hash, which carries the bucket (tasks/canary.py); apart from the study's plan.
create or replace view stg_canary_plan as
select key, base_key, study, bucket, judge, model, task, prompt_level, prompt_version, scale,
       reasoning_effort, item_id, "repeat", messages, params
from read_parquet('${warehouse}/canary_plan/*.parquet', union_by_name = true);
