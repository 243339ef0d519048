-- One row per pairwise design: win rates of answer a and of the human-preferred answer, agreement.
create or replace view stg_pairwise_agreement as ${staging:pairwise_agreement};
