-- One row per tone comparison × text × pole: ok repeats, mean overall, repeat SD, pass share.
create or replace view stg_tone_version_scores as
select study, judge, model, prompt_level, rewriter, axis, text_id, pole, threshold, n_calls,
       n_ok, mean_overall, sd_overall, verdict_share
from read_parquet('${warehouse}/tone_version_scores/*.parquet', union_by_name = true);
