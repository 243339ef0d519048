-- Each run's main numbers (long format), for comparing a run with the one before.
create or replace view stg_metric_history as
select study, run_id, finished_at, source, row_key, metric, value
from read_parquet('${warehouse}/metric_history/*.parquet', union_by_name = true);
