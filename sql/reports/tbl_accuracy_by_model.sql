-- Tables 14–16 analogue (per model × subset): which judge is most accurate, and how lenient
-- are its errors?
-- The paper (E.1): "Tables 13–16 report accuracy, leniency, and error counts by benchmark
-- subset and model, with directional error-switch rates for In-Context prompts relative to the
-- base prompt." and "Table 13 splits results by subset; Tables 14–16 give per-model results for
-- the full, near-agreement, and ambiguous subsets."
-- Table 14 ↔ subset 'full' (full agreement; the summary's "full" may also mean every item,
-- subset 'all', also here), Table 15 ↔ 'near', Table 16 ↔ 'ambiguous'. A model here is a judge
-- (a model plus its parameters). Rows of fct_accuracy_by_factor (one GROUPING SETS query). Per
-- judge and subset: mean, min and max over its designs with a
-- scored item (unweighted; leniency over those that made an error). Percent. fp / fn: the error
-- counts, false TRUEs and false FALSEs summed over the judge's designs. mean_repeat_sd: the
-- designs' run-to-run noise (repeat_sd of stg_accuracy_metrics, SD of 0/1 repeat verdicts per
-- item) averaged; null when repeats = 1.
-- subset: the items by consensus agreement: all (every item), full (every voter agrees), near
-- (at least analysis.near_agreement of the voters, default 0.9, but not all) or ambiguous (the
-- rest, and items with fewer than analysis.min_designs voters).
-- n_designs: the designs with a scored item in the subset. mean_acc_pct / min_acc_pct /
-- max_acc_pct: the mean, min and max of their acc_pct (tbl_accuracy_by_design's, per subset);
-- mean_leniency_pct / min_leniency_pct / max_leniency_pct: the same of leniency_pct, the share
-- of errors that are false TRUEs, over the designs that made an error.
create or replace view tbl_accuracy_by_model as
select study,
       subset,
       judge, model,
       f.* exclude (study, subset, factor, reasoning_effort, prompt_level, judge, model)
from fct_accuracy_by_factor f
where factor = 'judge'
order by study, sort_pos('subset', subset),
         judge;
