-- Per-design agreement with humans, computed by tasks/stats.py (pingouin, krippendorff).
create or replace view stg_rating_metrics as
select study, kind, judge, model, prompt_level, scale, n_planned, n_items, parse_failure_rate,
       error_rate, bias, mae, wilcoxon_w, wilcoxon_p, rank_biserial, kripp_alpha
from read_parquet('${warehouse}/rating_metrics/*.parquet', union_by_name = true);
