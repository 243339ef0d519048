-- Per-design metrics with the paper's ordering of prompt levels and scales.
create or replace view fct_rating_metrics as
select m.*,
       coalesce(list_position(['base', 'short_icl', 'long_icl'], m.prompt_level), 99) as level_order,
       coalesce(list_position(['likert7', 'bipolar3', 'unit', 'pct100'], m.scale), 99) as scale_order
from stg_rating_metrics m;
