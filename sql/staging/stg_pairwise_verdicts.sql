-- Every planned call of a pairwise study: a pair in one order, its status, position and winner.
create or replace view stg_pairwise_verdicts as ${staging:pairwise_verdicts};
