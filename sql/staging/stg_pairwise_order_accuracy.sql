-- One row per pairwise design: accuracy in each order, positional agreement and κ, as LLMBar counts them.
create or replace view stg_pairwise_order_accuracy as
select study, judge, model, prompt_level, reasoning_effort, n_units, correct_ab, correct_ba,
       correct_average, correct_both, equal, n_none_both, n_ties, n_failed, n_missing,
       kappa_ab, kappa_ba, kappa_average, kappa_agreement
from read_parquet('${warehouse}/pairwise_order_accuracy/*.parquet', union_by_name = true);
