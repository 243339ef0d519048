-- Figure 5: does averaging three designs cut |bias| and MAE, per ensemble strategy?
create or replace view tbl_ensembles as
select study,
       strategy,
       n_possible,
       n_evaluated,
       round(member_abs_bias, 3) as member_abs_bias,
       round(ensemble_abs_bias, 3) as ensemble_abs_bias,
       round(bias_reduction_pct, 1) as bias_reduction_pct,
       round(member_mae, 3) as member_mae,
       round(ensemble_mae, 3) as ensemble_mae,
       round(mae_reduction_pct, 1) as mae_reduction_pct,
       round(100 * share_beats_best_member, 1) as beats_best_member_pct
from stg_ensembles
where size = 3
order by study,
         coalesce(list_position(['model_free', 'model_fixed', 'scale', 'prompt'], strategy), 99),
         strategy;
