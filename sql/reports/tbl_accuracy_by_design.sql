-- The designs behind Tables 13–16: how accurate is each design, overall and per consensus subset?
-- Percent. (Table 13 is by subset: tbl_accuracy_by_prompt / _by_effort; Tables 14–16 per model ×
-- subset: tbl_accuracy_by_model.)
-- Over the items the design resolved that have a truth; leniency = share of errors that are
-- false TRUEs (null without errors); unparseable_pct is over every planned call. repeat_sd is
-- run-to-run noise: the SD of the design's repeat verdicts (0/1) per item, averaged over its
-- items with at least two ok repeats (all items); null when the study has repeats = 1.
create or replace view tbl_accuracy_by_design as
select study,
       judge,
       model,
       prompt_level,
       reasoning_effort,
       max(n_scored) filter (where subset = 'all') as n_scored,
       round(100 * max(accuracy) filter (where subset = 'all'), 1) as acc_pct,
       max(n_scored) filter (where subset = 'full') as n_full,
       round(100 * max(accuracy) filter (where subset = 'full'), 1) as acc_full_pct,
       max(n_scored) filter (where subset = 'near') as n_near,
       round(100 * max(accuracy) filter (where subset = 'near'), 1) as acc_near_pct,
       max(n_scored) filter (where subset = 'ambiguous') as n_ambiguous,
       round(100 * max(accuracy) filter (where subset = 'ambiguous'), 1) as acc_ambiguous_pct,
       max(fp) filter (where subset = 'all') as fp,
       max(fn) filter (where subset = 'all') as fn,
       round(100 * max(leniency) filter (where subset = 'all'), 1) as leniency_pct,
       round(100 * max(true_rate) filter (where subset = 'all'), 1) as true_pct,
       round(100 * max(unparseable_rate) filter (where subset = 'all'), 1) as unparseable_pct,
       max(n_no_truth) filter (where subset = 'all') as n_no_truth,
       max(truth_source) filter (where subset = 'all') as truth_source,
       round(max(repeat_sd) filter (where subset = 'all'), 3) as repeat_sd
from stg_accuracy_metrics
group by study, judge, model, prompt_level, reasoning_effort
order by study, judge,
         sort_pos('prompt_level', prompt_level), prompt_level,
         reasoning_effort = 'n/a',
         sort_pos('reasoning_effort', reasoning_effort),
         reasoning_effort;
