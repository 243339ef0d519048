-- One row per study × item: the voters' votes, agreement subset, consensus label and reference.
create or replace view stg_consensus as ${staging:consensus};
