-- One row per rewrite × check (facts, length, direction, mtld, similarity): passed, value, detail.
create or replace view stg_rewrite_checks as ${staging:rewrite_checks};
