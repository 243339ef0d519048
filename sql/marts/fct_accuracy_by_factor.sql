-- Accuracy and leniency per subset over the designs that share one value of one design factor:
-- reasoning effort and prompt level (the paper's Table 13 analogues) and the judge (Tables
-- 14–16): one GROUPING SETS query, which tbl_accuracy_by_effort, tbl_accuracy_by_prompt and
-- tbl_accuracy_by_model each read for their factor. factor: 'reasoning_effort' |
-- 'prompt_level' | 'judge'; the other factors' columns are null on its rows.
-- Per subset and value: mean, min and max over designs with a scored item (unweighted;
-- leniency over those that made an error). Percent. fp / fn: the error counts, false TRUEs and
-- false FALSEs summed over the row's designs. mean_repeat_sd: the designs' run-to-run noise
-- (repeat_sd of stg_accuracy_metrics, SD of 0/1 repeat verdicts per item) averaged; null when
-- repeats = 1.
create or replace view fct_accuracy_by_factor as
select study,
       subset,
       case
           when grouping(reasoning_effort) = 0 then 'reasoning_effort'
           when grouping(prompt_level) = 0 then 'prompt_level'
           else 'judge'
       end as factor,
       reasoning_effort,
       prompt_level,
       judge,
       model,
       count(accuracy) as n_designs,
       round(100 * avg(accuracy), 1) as mean_acc_pct,
       round(100 * min(accuracy), 1) as min_acc_pct,
       round(100 * max(accuracy), 1) as max_acc_pct,
       round(100 * avg(leniency), 1) as mean_leniency_pct,
       round(100 * min(leniency), 1) as min_leniency_pct,
       round(100 * max(leniency), 1) as max_leniency_pct,
       sum(fp)::bigint as fp,
       sum(fn)::bigint as fn,
       round(avg(repeat_sd), 3) as mean_repeat_sd
from stg_accuracy_metrics
group by grouping sets (
    (study, subset, reasoning_effort),
    (study, subset, prompt_level),
    (study, subset, judge, model)
);
