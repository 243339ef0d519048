-- One row per study × pool × strategy: the triple best on half A of the items, scored on half B.
create or replace view stg_ensemble_holdout as ${staging:ensemble_holdout};
