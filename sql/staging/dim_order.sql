-- Sort orders as data: each dimension's values (scale, prompt_level, axis, …) with their position.
-- Rewritten on every publish by tasks/dims.py from the files that declare them: scales in
-- prompts/scales.toml order, prompt levels in each task.toml's `levels` order, tone axes by file
-- name, fixed vocabularies (subset, choice, grouping, pool, strategy, test) in their schema's
-- order, reasoning efforts weakest first. Views sort with the macro sort_pos(dimension, value),
-- which holds the same orders: a value no source declares gets 99 and sorts last, then by name.
create or replace view dim_order as
select dimension, value, position
from read_parquet('${warehouse}/dim_order/*.parquet', union_by_name = true);
