-- Requests, tokens and cost per design cell, plus an "(all)" total row per judge (a total
-- with an unknown part is null).
-- cost_usd: the price paid (litellm's offline price table; null for a model it does not list),
-- online_cost_usd + batch_cost_usd. cached_tokens: prompt tokens read from the provider's prompt
-- cache, priced at its cache-read rate (null: not reported). cache_write_tokens: prompt tokens
-- written to the cache, at its cache-write rate. batch_calls: calls a provider batch answered,
-- billed at the batch rates. batch_prompt_tokens / batch_completion_tokens: the batch calls'
-- tokens (the online calls' are prompt_tokens − batch_prompt_tokens, and so on).
-- online_cost_usd: the price of the online calls. batch_cost_usd: the price of the batch
-- calls (null when litellm's map lists no batch price for the model).
create or replace view tbl_design_cost as
select study, judge, prompt_level, scale, reasoning_effort, n_planned, n_stored, requests,
       prompt_tokens, completion_tokens, round(cost_usd, 4) as cost_usd,
       cached_tokens, cache_write_tokens, batch_calls, batch_prompt_tokens,
       batch_completion_tokens, round(online_cost_usd, 4) as online_cost_usd,
       round(batch_cost_usd, 4) as batch_cost_usd
from (
    select study, judge, prompt_level, scale, reasoning_effort, n_planned, n_stored, requests,
           prompt_tokens, completion_tokens, cost_usd, level_order, scale_order,
           cached_tokens, cache_write_tokens, batch_calls, batch_prompt_tokens,
           batch_completion_tokens, online_cost_usd, batch_cost_usd
    from fct_design_costs
    union all
    select study, judge, '(all)', '(all)', '(all)', sum(n_planned), sum(n_stored), sum(requests),
           sum(prompt_tokens), sum(completion_tokens),
           -- a total with an unknown part is unknown, not the sum of the known ones
           case when count(cost_usd) = count(*) then sum(cost_usd) end, 100, 100,
           sum(cached_tokens), sum(cache_write_tokens), sum(batch_calls),
           sum(batch_prompt_tokens), sum(batch_completion_tokens),
           case when count(online_cost_usd) = count(*) then sum(online_cost_usd) end,
           case when count(batch_cost_usd) = count(*) then sum(batch_cost_usd) end
    from fct_design_costs
    group by study, judge
)
order by study, judge, level_order, prompt_level, scale_order, scale, reasoning_effort;
