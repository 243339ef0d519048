-- One row per pairwise design: win rates of answer a and of the human-preferred answer, agreement.
create or replace view stg_pairwise_agreement as
select study, judge, model, prompt_level, reasoning_effort, n_decisive, win_rate_a,
       n_labelled_calls, preferred_win_rate, n_labelled_units, n_agree, n_combined_ties,
       human_accuracy, human_accuracy_decisive, n_human_ties, n_untied_units
from read_parquet('${warehouse}/pairwise_agreement/*.parquet', union_by_name = true);
