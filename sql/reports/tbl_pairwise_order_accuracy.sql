-- Accuracy in each order and positional agreement per pairwise design, in LLMBar's terms. Percent.
-- (LLMBar: Zeng et al., ICLR 2024, princeton-nlp/LLMBar LLMEvaluator/evaluate.py.)
-- A unit is a labelled pair × repeat judged once in each order; every unit counts in every
-- denominator (n_units, the paper's n). correct_ab_pct: percent of units right in order ab,
-- the paper's correct_False (answer a shown first, their swap = False); correct_ba_pct: percent
-- of units right in order ba, the paper's correct_True (b shown first); correct_average_pct:
-- the mean of correct_ab_pct and correct_ba_pct; correct_both / correct_both_pct: units right
-- in both orders (count, percent). equal_pct: positional agreement (the paper's equal),
-- percent of units with the same outcome in both orders.
-- A tie is never correct, and tie agrees with tie in equal. A call without a winner (failed:
-- provider error, unparseable or out-of-range answer, n_failed; or not made yet, n_missing)
-- is never correct, and two orders without a winner count as equal (the authors compare
-- None == None); n_none_both: units where neither order has a winner.
-- Cohen's κ as the authors' evaluate.py computes it (sklearn cohen_kappa_score), null when
-- chance agreement is 1: a verdict is coded 1 when it names answer a, else 0 (b, tie and no
-- winner alike), the label 1 (a) or 2 (b). kappa_ab / kappa_ba (the authors' kappa_False /
-- kappa_True): κ of the verdicts' a-or-not code in order ab / ba against the label's code, so
-- only a–a matches count: not the κ of verdict against label; kappa_average: the mean of the
-- two; kappa_agreement: κ of the two orders' a-or-not codes.
-- LLMBar's Rating strategies (one score per output, no order) are imported as judgelab sees
-- them: higher score wins, equal scores tie in both orders, a non-integer score fails both.
-- The paper's files break those by position instead: a tie goes to the answer shown second
-- (swap = False names output 2, swap = True output 1), a failed score to the answer shown
-- first; nothing else differs (on LLMBar Natural every difference is such a tie, 6 to 47
-- units per Rating strategy, and no score failed: tests/pairwise/test_llmbar_reproduction.py).
-- reasoning_effort: the reasoning effort the judge was asked for ("default": none sent, the
-- provider's own; "n/a": the provider has no such control).
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
