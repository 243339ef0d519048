-- One row per rewrite × check (facts, length, direction, mtld, similarity): passed, value, detail.
create or replace view stg_rewrite_checks as
select version_id, text_id, axis, pole, rewriter, "check", passed, value, detail
from read_parquet('${warehouse}/rewrite_checks/*.parquet', union_by_name = true);
