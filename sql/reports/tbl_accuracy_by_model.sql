-- Which judge is most accurate, and how lenient are its errors, across its designs?
-- Per subset: mean, min and max over designs with a scored item (unweighted; leniency over those
-- that made an error). Percent. mean_repeat_sd: the designs' run-to-run noise (repeat_sd of
-- stg_accuracy_metrics, SD of 0/1 repeat verdicts per item) averaged; null when repeats = 1.
create or replace view tbl_accuracy_by_model as
select study,
       subset,
       judge, model,
       count(accuracy) as n_designs,
       round(100 * avg(accuracy), 1) as mean_acc_pct,
       round(100 * min(accuracy), 1) as min_acc_pct,
       round(100 * max(accuracy), 1) as max_acc_pct,
       round(100 * avg(leniency), 1) as mean_leniency_pct,
       round(100 * min(leniency), 1) as min_leniency_pct,
       round(100 * max(leniency), 1) as max_leniency_pct,
       round(avg(repeat_sd), 3) as mean_repeat_sd
from stg_accuracy_metrics
group by study, subset, judge, model
order by study, sort_pos('subset', subset),
         judge;
