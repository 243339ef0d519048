-- Benchmark texts with the human mean on the benchmark's own scale (one row per item).
create or replace view stg_items as
select item_id, benchmark, domain, text, human_mean, human_sd, n_raters, human_min, human_max
from read_parquet('${warehouse}/items/*.parquet', union_by_name = true);
