-- Per-design grades against the candidates' labels on 1–7, computed as rating metrics are (tasks/rating/metrics.py).
create or replace view stg_grading_metrics as
select study, kind, judge, model, prompt_level, scale, n_planned, n_items, repeat_sd,
       parse_failure_rate, error_rate, bias, abs_bias, bias_lo, bias_hi, mae, mae_lo, mae_hi,
       wilcoxon_w, wilcoxon_p, p_holm, p_bh, rank_biserial, kripp_alpha, alpha_lo, alpha_hi,
       readout
from read_parquet('${warehouse}/grading_metrics/*.parquet', union_by_name = true);
