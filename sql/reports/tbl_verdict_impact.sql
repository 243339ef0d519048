-- Table 17 analogue: does changing one design choice alone change accuracy? Per choice, the pairs
-- of designs differing only in it: mean and max |accuracy difference| (percentage points) and the
-- share with a significant McNemar test (p < 0.05; a pair without shared items counts as not).
create or replace view tbl_verdict_impact as
select study,
       choice,
       count(*) as n_pairs,
       round(100 * avg(abs_acc_diff), 1) as mean_abs_acc_diff_pct,
       round(100 * max(abs_acc_diff), 1) as max_abs_acc_diff_pct,
       round(100 * count_if(sig) / count(*), 1) as sig_pct
from stg_verdict_pairs
group by study, choice
order by study, list_position(['model', 'prompt_level', 'reasoning_effort'], choice);
