-- Every planned grading call with its status and, when ok, grade and label on 1–7 (label: correct 7, wrong 1).
create or replace view stg_grading_scores as
select key, study, kind, judge, model, task, prompt_level, prompt_version, scale, item_id, "repeat",
       status, score, score_1to7, human_1to7, readout
from read_parquet('${warehouse}/grading_scores/*.parquet', union_by_name = true);
