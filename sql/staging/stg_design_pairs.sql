-- One row per unordered pair of designs in a study: agreement, difference and choices that differ.
create or replace view stg_design_pairs as
select study, kind_a, judge_a, model_a, prompt_level_a, scale_a, kind_b, judge_b, model_b,
       prompt_level_b, scale_b, n_items, mean_diff, abs_diff, mad, alpha, wilcoxon_p, p_holm,
       p_bh, sig, meaningful, diff_lo, diff_hi, tost_p, equivalent, differs, n_differ
from read_parquet('${warehouse}/design_pairs/*.parquet', union_by_name = true);
