-- Table 8 analogue: average bias, |bias| and MAE and the range of bias across designs, per task,
-- prompt level and model (1–7 scale), with a significance test of average |bias|.
-- The paper (D.1): "Table 8 summarizes average performance and bias ranges" and "notes significance
-- testing for average absolute bias". The summary does not name the test; here it asks whether the
-- groups of a grouping differ in |bias|: Kruskal–Wallis H over the designs' |bias| across the
-- prompt levels (rows with grouping prompt_level), the models (grouping model) or the readouts
-- (grouping readout) of the study and kind, tie-corrected, chi-square with abs_bias_df = groups − 1
-- (tasks/rating/thresholds.py). One test per grouping, repeated on each of its rows; null for the
-- "(all)" row, with one group, or when every |bias| is equal. abs_bias_sig: p < 0.05.
-- grouping: what the row's designs are grouped by: all (every design, group "(all)"),
-- prompt_level, model (one group per judge) or readout (only when the study has two readouts).
-- n_designs: the group's designs with at least one scored item. mean_bias / mean_abs_bias /
-- mean_mae: the group's mean design bias (judge − human, 1–7), |bias| and MAE; min_bias /
-- max_bias: the group's lowest and highest design bias. abs_bias_h / abs_bias_df /
-- abs_bias_p: the Kruskal–Wallis test of |bias| across the grouping's groups: H, its degrees of
-- freedom (groups − 1) and its p value.
create or replace view tbl_bias_summary as
select study, kind, grouping, "group", n_designs,
       round(mean_bias, 3) as mean_bias,
       round(mean_abs_bias, 3) as mean_abs_bias,
       round(mean_mae, 3) as mean_mae,
       round(min_bias, 3) as min_bias,
       round(max_bias, 3) as max_bias,
       round(abs_bias_h, 3) as abs_bias_h,
       abs_bias_df,
       abs_bias_p,
       sig_label(abs_bias_p) as abs_bias_sig
from stg_threshold_shares
where subset = 'all'
order by study, kind, sort_pos('grouping', grouping),
         sort_pos('prompt_level', "group"), "group";
