-- Every planned TRUE/FALSE judge call of an accuracy study, with its status, verdict and reference.
create or replace view stg_verdicts as
select study, judge, model, prompt_level, reasoning_effort, item_id, "repeat", status, verdict,
       reference
from read_parquet('${warehouse}/verdicts/*.parquet', union_by_name = true);
