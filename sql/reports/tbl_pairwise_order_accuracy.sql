-- Accuracy in each order and positional agreement per pairwise design, in LLMBar's terms. Percent.
-- (LLMBar: Zeng et al., ICLR 2024, princeton-nlp/LLMBar LLMEvaluator/evaluate.py.)
-- A unit is a labelled pair × repeat judged once in each order; every unit counts in every
-- denominator (n_units, the paper's n). correct_ab_pct is the paper's correct_False (answer a
-- shown first, their swap = False), correct_ba_pct its correct_True (b shown first);
-- correct_average_pct their mean; correct_both_pct right in both orders. equal_pct is
-- positional agreement (the paper's equal): the same outcome in both orders.
-- A tie is never correct, and tie agrees with tie in equal. A call without a winner (failed:
-- provider error, unparseable or out-of-range answer, n_failed; or not made yet, n_missing)
-- is never correct, and two orders without a winner count as equal (the authors compare
-- None == None; n_none_both of them). κ as the authors' evaluate.py computes it (sklearn
-- cohen_kappa_score): a verdict is coded 1 when it names answer a, else 0 (b, tie and no
-- winner alike), the label 1 (a) or 2 (b); kappa_ab (kappa_False), kappa_ba (kappa_True) set
-- that code against the label coding, so only a–a matches count and it is not the κ of
-- verdict against label; kappa_average is their mean; kappa_agreement is κ of the two orders'
-- a-or-not codes. Null when chance agreement is 1.
-- LLMBar's Rating strategies (one score per output, no order) are imported as judgelab sees
-- them: higher score wins, equal scores tie in both orders, a non-integer score fails both.
-- The paper's files break those by position instead: a tie goes to the answer shown second
-- (swap = False names output 2, swap = True output 1), a failed score to the answer shown
-- first; nothing else differs (on LLMBar Natural every difference is such a tie, 6 to 47
-- units per Rating strategy, and no score failed: tests/pairwise/test_llmbar_reproduction.py).
create or replace view tbl_pairwise_order_accuracy as
select study,
       judge,
       model,
       prompt_level,
       reasoning_effort,
       n_units,
       correct_ab,
       round(100 * correct_ab / n_units, 1) as correct_ab_pct,
       correct_ba,
       round(100 * correct_ba / n_units, 1) as correct_ba_pct,
       round(100 * correct_average, 2) as correct_average_pct,
       correct_both,
       round(100 * correct_both / n_units, 1) as correct_both_pct,
       equal,
       round(100 * equal / n_units, 1) as equal_pct,
       n_none_both,
       n_ties,
       n_failed,
       n_missing,
       round(kappa_ab, 4) as kappa_ab,
       round(kappa_ba, 4) as kappa_ba,
       round(kappa_average, 4) as kappa_average,
       round(kappa_agreement, 4) as kappa_agreement
from stg_pairwise_order_accuracy
order by study, judge,
         sort_pos('prompt_level', prompt_level), prompt_level,
         reasoning_effort = 'n/a',
         sort_pos('reasoning_effort', reasoning_effort),
         reasoning_effort;
