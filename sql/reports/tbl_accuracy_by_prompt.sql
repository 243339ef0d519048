-- Table 13 analogue (results by subset): do in-context examples change accuracy and leniency?
-- The paper (E.1): "Tables 13–16 report accuracy, leniency, and error counts by benchmark
-- subset and model, with directional error-switch rates for In-Context prompts relative to the
-- base prompt." and "Table 13 splits results by subset; Tables 14–16 give per-model results for
-- the full, near-agreement, and ambiguous subsets."
-- Rows of fct_accuracy_by_factor (one GROUPING SETS query). Per subset and prompt level: mean, min and max over designs with a scored item (unweighted;
-- leniency over those that made an error). Percent. fp / fn: the error counts, false TRUEs and
-- false FALSEs summed over the row's designs. mean_repeat_sd: the designs' run-to-run noise
-- (repeat_sd of stg_accuracy_metrics, SD of 0/1 repeat verdicts per item) averaged; null when
-- repeats = 1.
create or replace view tbl_accuracy_by_prompt as
select study,
       subset,
       prompt_level,
       f.* exclude (study, subset, factor, reasoning_effort, prompt_level, judge, model)
from fct_accuracy_by_factor f
where factor = 'prompt_level'
order by study, sort_pos('subset', subset),
         sort_pos('prompt_level', prompt_level), prompt_level;
