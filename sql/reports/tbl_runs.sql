-- Every run of every study, newest first: when it ran, calls each judge made, and whether that was the judge's first run (a judge newly added to the study).
create or replace view tbl_runs as
select study,
       study_type,
       run_id,
       started_at,
       finished_at,
       judge,
       calls_made,
       calls_failed,
       calls_made > 0 and coalesce(
           sum(calls_made) over (
               partition by study, judge order by finished_at
               rows between unbounded preceding and 1 preceding
           ),
           0
       ) = 0 as new_judge
from stg_runs
order by finished_at desc, study, judge;
