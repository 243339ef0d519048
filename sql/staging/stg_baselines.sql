-- The offline classifier baselines each study scored, with their native range and a caveat.
create or replace view stg_baselines as ${staging:baselines};
