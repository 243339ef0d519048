-- Table 8 analogue: average bias, |bias| and MAE and the range of bias across designs, per task,
-- prompt level and model (1–7 scale).
create or replace view tbl_bias_summary as
select study, kind, grouping, "group", n_designs,
       round(mean_bias, 3) as mean_bias,
       round(mean_abs_bias, 3) as mean_abs_bias,
       round(mean_mae, 3) as mean_mae,
       round(min_bias, 3) as min_bias,
       round(max_bias, 3) as max_bias
from stg_threshold_shares
where subset = 'all'
order by study, kind, sort_pos('grouping', grouping),
         sort_pos('prompt_level', "group"), "group";
