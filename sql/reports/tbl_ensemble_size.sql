-- Figure 6: how |bias| and MAE fall as ensembles of different judges grow from 2 to 5 members.
create or replace view tbl_ensemble_size as
select study,
       strategy,
       size,
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
where strategy in ('model_free', 'model_fixed') and size between 2 and 5
order by study, list_position(['model_free', 'model_fixed'], strategy), size;
