-- Planned judge calls: one row per (study, design, item, repeat), keyed by the call hash.
create or replace view stg_plan as
select key, study, judge, model, task, prompt_level, prompt_version, scale, reasoning_effort,
       item_id, "repeat",
       messages, params
from read_parquet('${warehouse}/plan/*.parquet', union_by_name = true);
