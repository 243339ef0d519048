-- Per-design agreement with humans, computed by tasks/stats.py (Wilcoxon p: stats.signed_rank).
-- readout: how each call became a score ("answer" or "expected", as in stg_scores): a design
-- choice like the others, read from the same calls.
create or replace view stg_rating_metrics as
select study, kind, judge, model, prompt_level, scale, n_planned, n_items, repeat_sd,
       parse_failure_rate, error_rate, bias, abs_bias, bias_lo, bias_hi, mae, mae_lo, mae_hi,
       wilcoxon_w, wilcoxon_p, p_holm, p_bh, rank_biserial, kripp_alpha, alpha_lo, alpha_hi,
       readout
from read_parquet('${warehouse}/rating_metrics/*.parquet', union_by_name = true);
