-- Table 7 analogue: what share of designs differ from humans (significantly, |bias| > 0.2 / 0.3,
-- MAE > 0.5, medium-to-large effect), per task, per prompt level and per model. Percent.
create or replace view tbl_threshold_shares as
select study, kind, grouping, "group", n_designs,
       round(100 * share_sig, 1) as sig_pct,
       round(100 * share_bias_gt_02, 1) as bias_gt_02_pct,
       round(100 * share_bias_gt_03, 1) as bias_gt_03_pct,
       round(100 * share_mae_gt_05, 1) as mae_gt_05_pct,
       round(100 * share_medium_large, 1) as medium_large_pct
from stg_threshold_shares
where subset = 'all'
order by study, kind, list_position(['all', 'prompt_level', 'model'], grouping),
         coalesce(list_position(['base', 'short_icl', 'long_icl'], "group"), 99), "group";
