-- One row per pairwise design: failures, ties, position consistency, flips, position bias.
create or replace view stg_pairwise_position as ${staging:pairwise_position};
