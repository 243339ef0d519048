-- One row per study × judge × design × canary batch: the shift from the reference batch and
-- the judge's own noise band, computed by tasks/drift.py (see schemas/drift.py).
create or replace view stg_drift as ${staging:drift};
