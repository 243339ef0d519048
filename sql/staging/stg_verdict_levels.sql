-- One row per study × subset × design choice × level: accuracy and leniency over the others.
create or replace view stg_verdict_levels as ${staging:verdict_levels};
