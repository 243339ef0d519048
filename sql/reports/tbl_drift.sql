-- Every canary batch of every watched judge and design: the shift from the reference batch
-- (ratings: mean on 1–7; verdicts: flip rate) with its CI, the noise band repeats alone stay
-- inside, and whether the CI lies wholly outside that band (flagged).
create or replace view tbl_drift as
select study, judge, prompt_level, scale, reasoning_effort, bucket, batch, reference, statistic,
       n_items, repeats, round(shift, 3) as shift, round(shift_lo, 3) as shift_lo,
       round(shift_hi, 3) as shift_hi, round(noise, 3) as noise, round(noise_sd, 3) as noise_sd,
       round(alpha, 3) as alpha, round(accuracy_change, 3) as accuracy_change, level, flagged
from stg_drift
order by study, judge, prompt_level, scale, reasoning_effort, batch;
