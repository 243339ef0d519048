-- The judgment store, newest row per call key, whatever the older row's status (a retried
-- error is superseded by its result, an imported answer by its file's edited one).
-- Parts written before endpoints counted have no endpoint (the provider default) and no
-- base_key (their key is their base key); parts written before imports have no source (all
-- their rows are calls) and no source_sha256 / source_row; parts written before caching and
-- batches counted have no cached_tokens / cache_write_tokens / batch_id (null: unknown, online), and parts written before score
-- distributions were kept have no probs (null: none). Only the parts whose checksum and
-- schema check out (tasks/judging/parts.py), listed by name when the views are published and
-- again whenever a running judge stage adds a part: a foreign file in the store is never read.
create or replace view stg_judgments as
select * exclude (rn)
    replace (coalesce(base_key, key) as base_key, coalesce(source, 'call') as source)
from (
    select *, row_number() over (partition by key order by created_at desc) as rn
    from (
        from read_parquet(${store_parts}, union_by_name = true)
        union all by name
        select null::varchar as base_key, null::varchar as endpoint, null::varchar as source,
               null::varchar as source_sha256, null::bigint as source_row,
               null::bigint as cached_tokens, null::bigint as cache_write_tokens,
               null::varchar as batch_id, null::varchar as probs
        where false
    )
)
where rn = 1;
