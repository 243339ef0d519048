-- The flagged canary batches only: a judge whose answers moved beyond its own run-to-run
-- noise since the reference batch (a provider changed the model behind its name, or a setting).
create or replace view tbl_drift_alerts as
select study, judge, prompt_level, scale, reasoning_effort, bucket, reference, statistic,
       n_items, shift, shift_lo, shift_hi, noise
from tbl_drift
where flagged
order by study, judge, bucket desc, prompt_level, scale, reasoning_effort;
