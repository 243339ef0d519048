-- Position bias per pairwise design: each pair is judged in both orders (MT-Bench's swap). Percent.
-- The design-sensitivity paper notes "Prior work also documents position, verbosity, and
-- self-preference biases"; MT-Bench measures position bias by swapping the two answers and
-- counting verdicts that change. consistency_pct: pair × repeat units (both orders parsed) with
-- the same winner in both orders, ties as stated; flips split into first_both (A won both
-- times), second_both and tie_mixed. bias_pp: share of decisive answers won by the answer shown
-- first, minus 50, with a 95% percentile bootstrap over pairs (bias_lo_pp, bias_hi_pp);
-- p_value: exact two-sided sign test over pairs (pairs leaning first vs second), p_holm
-- adjusted over the study's designs, flagged when p_holm < 0.05. failed_pct: calls with no
-- parsed answer (never counted as a winner); tie_pct over parsed answers.
create or replace view tbl_pairwise_position as
select study,
       judge,
       model,
       prompt_level,
       reasoning_effort,
       n_pairs,
       n_calls,
       round(100 * n_failed / nullif(n_calls, 0), 1) as failed_pct,
       round(100 * tie_rate, 1) as tie_pct,
       n_units,
       round(100 * consistency, 1) as consistency_pct,
       n_flips,
       n_first_both as first_both,
       n_second_both as second_both,
       n_tie_mixed as tie_mixed,
       n_decisive,
       round(100 * first_share, 1) as first_pct,
       round(100 * position_bias, 1) as bias_pp,
       round(100 * bias_lo, 1) as bias_lo_pp,
       round(100 * bias_hi, 1) as bias_hi_pp,
       n_pairs_first,
       n_pairs_second,
       round(p_value, 4) as p_value,
       round(p_holm, 4) as p_holm,
       flagged
from stg_pairwise_position
order by study, judge,
         sort_pos('prompt_level', prompt_level), prompt_level,
         reasoning_effort = 'n/a',
         sort_pos('reasoning_effort', reasoning_effort),
         reasoning_effort;
