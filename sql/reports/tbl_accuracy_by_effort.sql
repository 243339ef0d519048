-- Table 13 analogue (results by subset): does reasoning effort change accuracy and leniency?
-- "n/a" (no effort control) is its own row.
-- The paper (E.1): "Tables 13–16 report accuracy, leniency, and error counts by benchmark
-- subset and model, with directional error-switch rates for In-Context prompts relative to the
-- base prompt." and "Table 13 splits results by subset; Tables 14–16 give per-model results for
-- the full, near-agreement, and ambiguous subsets."
-- Rows of fct_accuracy_by_factor (one GROUPING SETS query). Per subset and effort: mean, min and max over designs with a scored item (unweighted;
-- leniency over those that made an error). Percent. fp / fn: the error counts, false TRUEs and
-- false FALSEs summed over the row's designs. mean_repeat_sd: the designs' run-to-run noise
-- (repeat_sd of stg_accuracy_metrics, SD of 0/1 repeat verdicts per item) averaged; null when
-- repeats = 1.
create or replace view tbl_accuracy_by_effort as
select study,
       subset,
       reasoning_effort,
       f.* exclude (study, subset, factor, reasoning_effort, prompt_level, judge, model)
from fct_accuracy_by_factor f
where factor = 'reasoning_effort'
order by study, sort_pos('subset', subset),
         reasoning_effort = 'n/a',
         sort_pos('reasoning_effort', reasoning_effort),
         reasoning_effort;
