-- One row per pair of designs differing in one choice: accuracies, McNemar, TOST equivalence.
create or replace view stg_verdict_pairs as
select study, choice, judge_a, model_a, prompt_level_a, reasoning_effort_a, judge_b, model_b,
       prompt_level_b, reasoning_effort_b, n_items, accuracy_a, accuracy_b, acc_diff, abs_acc_diff,
       b, c, odds_ratio, or_corrected, chi2, p_approx, p_exact, p, method, sig, p_holm, p_bh,
       margin, diff_lo, diff_hi, tost_p, equivalent
from read_parquet('${warehouse}/verdict_pairs/*.parquet', union_by_name = true);
