-- Who wins per pairwise design, and agreement with the human preference. Percent.
-- a_win_pct: share of decisive answers (both orders pooled, so position cancels) naming answer
-- a; preferred_win_pct: the same for the answer the human preferred. human_acc_pct: labelled
-- pair × repeat units whose order-combined verdict (MT-Bench's rule: an answer wins only when
-- it wins in both orders, else tie) is the human's choice, a combined tie counting as
-- disagreement; human_acc_decisive_pct leaves combined ties out.
create or replace view tbl_pairwise_agreement as
select study,
       judge,
       model,
       prompt_level,
       reasoning_effort,
       n_decisive,
       round(100 * win_rate_a, 1) as a_win_pct,
       n_labelled_calls,
       round(100 * preferred_win_rate, 1) as preferred_win_pct,
       n_labelled_units,
       n_agree,
       n_combined_ties,
       round(100 * human_accuracy, 1) as human_acc_pct,
       round(100 * human_accuracy_decisive, 1) as human_acc_decisive_pct
from stg_pairwise_agreement
order by study, judge,
         sort_pos('prompt_level', prompt_level), prompt_level,
         reasoning_effort = 'n/a',
         sort_pos('reasoning_effort', reasoning_effort),
         reasoning_effort;
