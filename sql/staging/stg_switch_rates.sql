-- One row per study × judge × effort × in-context level × subset: switches against base.
create or replace view stg_switch_rates as
select study, judge, model, prompt_level, reasoning_effort, subset, n_items, n_no_truth,
       accuracy_base, accuracy_level, wrong_to_right, right_to_wrong, net_change, true_to_false,
       false_to_true
from read_parquet('${warehouse}/switch_rates/*.parquet', union_by_name = true);
