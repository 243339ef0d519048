-- Each run's main numbers (long format), for comparing a run with the one before. Tone rows a
-- version before the shared names recorded ("evaluator=… · prompt_variant=…") read with
-- today's names (judge, prompt_level), so an upgraded study compares row by row.
create or replace view stg_metric_history as
select study, run_id, finished_at, source,
       case when source = 'tone_gaps'
            then regexp_replace(row_key, '^evaluator=(.*) · prompt_variant=',
                                'judge=\1 · prompt_level=')
            else row_key end as row_key,
       metric, value
from read_parquet('${warehouse}/metric_history/*.parquet', union_by_name = true);
