-- The run ledger: one row per study run × judge, with the calls that run made.
create or replace view stg_runs as ${staging:runs};
