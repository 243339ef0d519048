-- The judgment store, newest row per call key (a retried error is superseded by its result).
-- Parts written before endpoints counted have no endpoint (the provider default) and no
-- base_key (their key is their base key). Only the parts whose checksum and schema check out
-- (tasks/judging/parts.py), listed by name when the views are published and again whenever
-- a running judge stage adds a part: a foreign file in the store is never read.
create or replace view stg_judgments as
select * exclude (rn) replace (coalesce(base_key, key) as base_key)
from (
    select *, row_number() over (partition by key order by created_at desc) as rn
    from (
        from read_parquet(${store_parts}, union_by_name = true)
        union all by name
        select null::varchar as base_key, null::varchar as endpoint where false
    )
)
where rn = 1;
