-- Table 15 analogue: do in-context examples change accuracy and leniency (base vs long_icl)?
-- Per subset: mean, min and max over designs with a scored item (unweighted; leniency over those
-- that made an error). Percent. mean_repeat_sd: the designs' run-to-run noise (repeat_sd of
-- stg_accuracy_metrics, SD of 0/1 repeat verdicts per item) averaged; null when repeats = 1.
create or replace view tbl_accuracy_by_prompt as
select study,
       subset,
       prompt_level,
       count(accuracy) as n_designs,
       round(100 * avg(accuracy), 1) as mean_acc_pct,
       round(100 * min(accuracy), 1) as min_acc_pct,
       round(100 * max(accuracy), 1) as max_acc_pct,
       round(100 * avg(leniency), 1) as mean_leniency_pct,
       round(100 * min(leniency), 1) as min_leniency_pct,
       round(100 * max(leniency), 1) as max_leniency_pct,
       round(avg(repeat_sd), 3) as mean_repeat_sd
from stg_accuracy_metrics
group by study, subset, prompt_level
order by study, sort_pos('subset', subset),
         sort_pos('prompt_level', prompt_level), prompt_level;
