-- One row per tone-test evaluation call: an original or rewritten text, scored by a judge.
create or replace view stg_tone_scores as
select study, judge, model, prompt_level, text_id, axis, pole, rewriter, "repeat", status,
       overall, criteria, human_score
from read_parquet('${warehouse}/tone_scores/*.parquet', union_by_name = true);
