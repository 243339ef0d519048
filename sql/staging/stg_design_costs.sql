-- Per-design requests, tokens and cost (litellm's offline price table; null when unknown).
-- cached_tokens: prompt tokens the provider read from its prompt cache; cache_write_tokens:
-- prompt tokens it wrote to the cache (each null when no call of the design reported it).
-- batch_calls: stored calls a provider batch answered. batch_prompt_tokens /
-- batch_completion_tokens: the batch calls' tokens. online_cost_usd: the price of the online
-- calls. batch_cost_usd: the price of the batch calls at the batch rates (null when the
-- price map lists none). cost_usd: online_cost_usd + batch_cost_usd.
create or replace view stg_design_costs as ${staging:design_costs};
