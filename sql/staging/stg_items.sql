-- Benchmark texts with the human mean on the benchmark's own scale (one row per item).
create or replace view stg_items as ${staging:items};
