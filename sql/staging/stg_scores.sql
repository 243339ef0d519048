-- Every planned call with its status and, when ok, judge and human on the common 1–7 scale.
create or replace view stg_scores as
select key, study, kind, judge, model, task, prompt_level, prompt_version, scale, item_id, "repeat",
       status, score, score_1to7, human_1to7
from read_parquet('${warehouse}/scores/*.parquet', union_by_name = true);
