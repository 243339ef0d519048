-- Position bias per pairwise design: each pair is judged in both orders (MT-Bench's swap). Percent.
-- The design-sensitivity paper notes "Prior work also documents position, verbosity, and
-- self-preference biases"; MT-Bench measures position bias by swapping the two answers and
-- counting verdicts that change. consistency_pct: pair × repeat units (both orders parsed) with the
-- same winner in both orders, ties as stated; n_flips: the units whose winner changes with the
-- order. first_both: flips where the answer shown first won in both orders; second_both: flips
-- where the answer shown second won in both; tie_mixed: flips with a tie in one order. first_pct:
-- the share of decisive answers won by the answer shown first, percent. bias_pp: share of decisive
-- answers won by the answer shown first, minus 50; bias_lo_pp / bias_hi_pp: bias_pp's 95%
-- percentile-bootstrap interval over pairs.
-- p_value: exact two-sided sign test over pairs (pairs leaning first vs second); n_pairs_first
-- / n_pairs_second: pairs won more often in first / in second position (null without the test);
-- p_holm: p_value adjusted over the study's designs (Holm); flagged: p_holm < 0.05. tie_pct:
-- ties, percent of parsed answers.
-- n_items: pairs with at least one parsed answer (n_pairs: all planned pairs). n_failed: calls
-- whose stored result is a provider error, an unparseable answer or an out-of-range one
-- (macro call_failed; never counted as a winner; a call not made yet is not failed);
-- failed_pct = n_failed ÷ n_calls; error_rate: provider errors ÷ n_calls (a judge whose every
-- call failed: 1.0). note (macro design_note): no scored pair and why, or too few pairs for the
-- bootstrap CI (n_items < 10) or for the sign test (pairs leaning one way < 6: p < 0.05 is
-- out of reach; a judge that always answers "A" over 5 pairs has bias [50, 50] and p 0.0625).
-- reasoning_effort: the reasoning effort the judge was asked for ("default": none sent, the
-- provider's own; "n/a": the provider has no such control).
create or replace view tbl_pairwise_position as
with calls as (
    select study, judge, prompt_level, reasoning_effort,
           count(distinct pair_id) filter (where status = 'ok') as n_items,
           count(*) filter (where call_failed(status)) as n_failed,
           count(*) filter (where status = 'error') as n_error
    from stg_pairwise_verdicts
    group by study, judge, prompt_level, reasoning_effort
)
select study,
       judge,
       model,
       prompt_level,
       reasoning_effort,
       n_pairs,
       coalesce(c.n_items, 0) as n_items,
       n_calls,
       c.n_failed,
       round(100 * c.n_failed / nullif(n_calls, 0), 1) as failed_pct,
       round(c.n_error / nullif(n_calls, 0), 3) as error_rate,
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
       flagged,
       join_notes(design_note(coalesce(c.n_items, 0), c.n_failed, n_calls, 'pair', ['bootstrap']),
                  small_n_note(n_pairs_first + n_pairs_second, 'leaning pair', 'sign')) as note
from stg_pairwise_position
left join calls c using (study, judge, prompt_level, reasoning_effort)
order by study, judge,
         sort_pos('prompt_level', prompt_level), prompt_level,
         reasoning_effort = 'n/a',
         sort_pos('reasoning_effort', reasoning_effort),
         reasoning_effort;
