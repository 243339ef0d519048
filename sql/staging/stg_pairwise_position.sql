-- One row per pairwise design: failures, ties, position consistency, flips, position bias.
create or replace view stg_pairwise_position as
select study, judge, model, prompt_level, reasoning_effort, n_pairs, n_calls, n_failed,
       n_decisive, n_first, n_ties, tie_rate, n_units, n_consistent, consistency, n_flips,
       n_first_both, n_second_both, n_tie_mixed, first_share, position_bias, bias_lo, bias_hi,
       n_pairs_first, n_pairs_second, p_value, p_holm, flagged
from read_parquet('${warehouse}/pairwise_position/*.parquet', union_by_name = true);
