-- The judgment store, newest row per call key (a retried error is superseded by its result).
create or replace view stg_judgments as
select * exclude (rn)
from (
    select *, row_number() over (partition by key order by created_at desc) as rn
    from read_parquet('${store}/part-*.parquet', union_by_name = true)
)
where rn = 1;
