-- One row per study × design × item subset: accuracy, error split, leniency, failures, noise.
create or replace view stg_accuracy_metrics as ${staging:accuracy_metrics};
