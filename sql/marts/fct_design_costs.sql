-- Per-design cost figures with the paper's ordering of prompt levels and scales.
create or replace view fct_design_costs as
select c.*,
       sort_pos('prompt_level', c.prompt_level) as level_order,
       sort_pos('scale', c.scale) as scale_order
from stg_design_costs c;
