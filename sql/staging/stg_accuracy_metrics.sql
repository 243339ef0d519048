-- One row per study × design × item subset: accuracy, error split, leniency, failures, noise.
create or replace view stg_accuracy_metrics as
select study, judge, model, prompt_level, reasoning_effort, subset, n_items, n_scored, n_unresolved,
       n_no_truth, n_correct, fp, fn, accuracy, leniency, strictness, true_rate, n_calls,
       unparseable_rate, truth_source, n_repeated, repeat_sd
from read_parquet('${warehouse}/accuracy_metrics/*.parquet', union_by_name = true);
