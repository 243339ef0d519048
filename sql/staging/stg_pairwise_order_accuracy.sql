-- One row per pairwise design: accuracy in each order, positional agreement and κ, as LLMBar counts them.
create or replace view stg_pairwise_order_accuracy as ${staging:pairwise_order_accuracy};
