-- The run ledger: one row per study run × judge, with the calls that run made.
create or replace view stg_runs as
select study, study_type, run_id, started_at, finished_at, judge, calls_made, calls_failed
from read_parquet('${warehouse}/runs/*.parquet', union_by_name = true);
