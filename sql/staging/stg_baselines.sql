-- The offline classifier baselines each study scored, with their native range and a caveat.
create or replace view stg_baselines as
select study, judge, model, task, scale, native_min, native_max, note
from read_parquet('${warehouse}/baselines/*.parquet', union_by_name = true);
