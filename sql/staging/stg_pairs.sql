-- Every pair a pairwise study judges: the shared context, answers A and B, the human preference.
create or replace view stg_pairs as ${staging:pairs};
