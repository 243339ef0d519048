-- Per-design requests, tokens and cost (litellm's offline price table; null when unknown).
-- cached_tokens / cache_write_tokens: prompt tokens the provider read from / wrote to its
-- prompt cache (null: no call of the design reported them). batch_calls: stored calls a
-- provider batch answered; batch_prompt_tokens / batch_completion_tokens: their tokens.
-- online_cost_usd / batch_cost_usd: the price of the online calls and of the batch calls
-- (batch rates; null when the price map lists none); cost_usd is their sum.
create or replace view stg_design_costs as ${staging:design_costs};
