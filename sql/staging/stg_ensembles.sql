-- One row per study × subset × pool × strategy × size: mean |bias| and MAE of ensembles beside their members'.
create or replace view stg_ensembles as ${staging:ensembles};
