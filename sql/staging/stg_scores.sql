-- Every planned call with its status and, when ok, judge and human on the common 1–7 scale.
-- readout: how the call became a score, one row per readout the study lists
-- ([study.analysis] readouts): "answer" the parsed answer; "expected" Σ p·v over the judge's
-- stored distribution on the scale's grid (status 'missing' when the call has none).
create or replace view stg_scores as
select key, study, kind, judge, model, task, prompt_level, prompt_version, scale, item_id, "repeat",
       status, score, score_1to7, human_1to7, readout
from read_parquet('${warehouse}/scores/*.parquet', union_by_name = true);
