-- Per-design cost figures with the paper's ordering of prompt levels and scales.
create or replace view fct_design_costs as
select c.*,
       coalesce(list_position(['base', 'short_icl', 'long_icl'], c.prompt_level), 99) as level_order,
       coalesce(list_position(['likert7', 'bipolar3', 'unit', 'pct100'], c.scale), 99) as scale_order
from stg_design_costs c;
