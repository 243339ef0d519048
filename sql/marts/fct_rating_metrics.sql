-- Per-design metrics with the paper's ordering of prompt levels and scales.
create or replace view fct_rating_metrics as
select m.*,
       sort_pos('prompt_level', m.prompt_level) as level_order,
       sort_pos('scale', m.scale) as scale_order
from stg_rating_metrics m;
