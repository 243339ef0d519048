-- What changed since the last run, per study: judges that made their first calls in the latest run ('new judge'), then every main number that is new, changed or gone compared with the run before.
create or replace view tbl_changes as
with ranked as (
    select study, run_id, finished_at,
           row_number() over (partition by study order by finished_at desc) as recency
    from (select distinct study, run_id, finished_at from stg_runs)
),
latest as (select * from ranked where recency = 1),
previous as (select * from ranked where recency = 2),
cur as (
    select h.* from stg_metric_history h join latest l using (study, run_id)
),
prev as (
    select h.* from stg_metric_history h join previous p using (study, run_id)
),
value_changes as (
    select coalesce(cur.study, prev.study) as study,
           coalesce(cur.source, prev.source) as source,
           coalesce(cur.row_key, prev.row_key) as row_key,
           coalesce(cur.metric, prev.metric) as metric,
           prev.value as old_value,
           cur.value as new_value,
           case when prev.row_key is null then 'new row'
                when cur.row_key is null then 'removed'
                else 'changed' end as change
    from cur
    full outer join prev using (study, source, row_key, metric)
    where cur.value is distinct from prev.value
       or cur.row_key is null or prev.row_key is null
)
select l.study,
       l.run_id,
       l.finished_at,
       p.run_id as previous_run_id,
       c.change,
       c.source,
       c.row_key,
       c.metric,
       c.old_value,
       c.new_value
from (
    select r.study, 'new judge' as change, 'runs' as source, 'judge=' || r.judge as row_key,
           'calls_made' as metric, null::double as old_value, r.calls_made::double as new_value
    from stg_runs r
    join latest using (study, run_id)
    where r.calls_made > 0
      and not exists (
          select 1 from stg_runs e
          where e.study = r.study and e.judge = r.judge and e.calls_made > 0
            and e.finished_at < r.finished_at
      )
    union all
    select study, change, source, row_key, metric, old_value, new_value from value_changes
) c
join latest l using (study)
left join previous p using (study)
order by l.study, c.change = 'new judge' desc, c.source, c.row_key, c.metric;
