-- Per-design cost figures with the paper's ordering of prompt levels and scales.
-- The columns after scale_order (cached and batch tokens, online and batch prices) are the
-- staging view's, appended after it: an added column never moves an earlier one.
create or replace view fct_design_costs as
select c.* exclude (cached_tokens, cache_write_tokens, batch_calls, batch_prompt_tokens,
                    batch_completion_tokens, online_cost_usd, batch_cost_usd),
       sort_pos('prompt_level', c.prompt_level) as level_order,
       sort_pos('scale', c.scale) as scale_order,
       c.cached_tokens, c.cache_write_tokens, c.batch_calls, c.batch_prompt_tokens,
       c.batch_completion_tokens, c.online_cost_usd, c.batch_cost_usd
from stg_design_costs c;
