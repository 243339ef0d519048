-- Who wins per pairwise design, and agreement with the human preference. Percent.
-- a_win_pct: share of decisive answers (both orders pooled, so position cancels) naming answer
-- a; preferred_win_pct: the same for the answer the human preferred (pairs labelled a or b).
-- human_acc_pct: labelled pair × repeat units whose order-combined verdict (MT-Bench's rule: an
-- answer wins only when it wins in both orders, else tie) is the human's label, a combined tie
-- agreeing with a human tie only (MT-Bench's agreement "w/ tie"); human_acc_decisive_pct: the
-- same over the n_untied_units, where neither the combined verdict nor the human says tie
-- (MT-Bench's "w/o tie"). n_human_ties: labelled units the human called a tie.
-- n_items: pairs with at least one parsed answer. n_failed: calls whose stored result is a
-- provider error, an unparseable answer or an out-of-range one (macro call_failed; a call not
-- made yet is not failed); error_rate: provider errors ÷ planned calls. note (macro
-- design_note): a design with no scored pair says so and why (no test or interval here).
-- n_agree: labelled units whose combined verdict is the human's label (a tie matching a tie
-- only); n_combined_ties: labelled units whose combined verdict is a tie (the orders disagree,
-- or both say tie); n_untied_units: labelled units where neither the combined verdict nor the
-- human says tie.
-- reasoning_effort: the reasoning effort the judge was asked for ("default": none sent, the
-- provider's own; "n/a": the provider has no such control).
create or replace view tbl_pairwise_agreement as
with calls as (
    select study, judge, prompt_level, reasoning_effort,
           count(*) as n_calls,
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
       coalesce(c.n_items, 0) as n_items,
       c.n_failed,
       round(c.n_error / nullif(c.n_calls, 0), 3) as error_rate,
       n_decisive,
       round(100 * win_rate_a, 1) as a_win_pct,
       n_labelled_calls,
       round(100 * preferred_win_rate, 1) as preferred_win_pct,
       n_labelled_units,
       n_agree,
       n_combined_ties,
       round(100 * human_accuracy, 1) as human_acc_pct,
       round(100 * human_accuracy_decisive, 1) as human_acc_decisive_pct,
       design_note(coalesce(c.n_items, 0), c.n_failed, c.n_calls, 'pair', []) as note,
       n_human_ties,
       n_untied_units
from stg_pairwise_agreement
left join calls c using (study, judge, prompt_level, reasoning_effort)
order by study, judge,
         sort_pos('prompt_level', prompt_level), prompt_level,
         reasoning_effort = 'n/a',
         sort_pos('reasoning_effort', reasoning_effort),
         reasoning_effort;
