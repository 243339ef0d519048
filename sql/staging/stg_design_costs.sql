-- Per-design requests, tokens and cost (litellm's offline price table; null when unknown).
create or replace view stg_design_costs as
select study, judge, model, prompt_level, scale, reasoning_effort, n_planned, n_stored, requests,
       prompt_tokens, completion_tokens, cost_usd
from read_parquet('${warehouse}/design_costs/*.parquet', union_by_name = true);
