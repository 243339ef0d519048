-- Every planned call of a pairwise study: a pair in one order, its status, position and winner.
create or replace view stg_pairwise_verdicts as
select study, judge, model, prompt_level, reasoning_effort, pair_id, shown_first, "repeat",
       status, position, winner, preferred
from read_parquet('${warehouse}/pairwise_verdicts/*.parquet', union_by_name = true);
