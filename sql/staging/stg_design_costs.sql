-- Per-design requests, tokens and cost (litellm's offline price table; null when unknown).
create or replace view stg_design_costs as ${staging:design_costs};
