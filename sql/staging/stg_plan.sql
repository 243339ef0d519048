-- Planned judge calls: one row per (study, design, item, repeat), keyed by the call hash
-- (base_key: the same call's hash without the judge's endpoint).
create or replace view stg_plan as
select key, coalesce(base_key, key) as base_key, study, judge, model, task, prompt_level,
       prompt_version, scale, reasoning_effort, item_id, "repeat",
       messages, params
from (
    from read_parquet('${warehouse}/plan/*.parquet', union_by_name = true)
    union all by name
    select null::varchar as base_key where false  -- parts planned before base_key existed
);
