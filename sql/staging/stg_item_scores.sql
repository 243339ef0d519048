-- One row per design × item: the judge's mean over ok repeats and the human mean, both 1–7.
-- readout: how each call became a score ("answer" or "expected", as in stg_scores).
create or replace view stg_item_scores as
select study, kind, judge, model, prompt_level, scale, item_id, n_ok, score_1to7, score_sd,
       human_1to7, readout
from read_parquet('${warehouse}/item_scores/*.parquet', union_by_name = true);
