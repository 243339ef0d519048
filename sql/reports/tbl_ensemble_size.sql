-- Figure 6: how |bias| and MAE fall as ensembles of different LLM judges grow from 1 to 5 members.
-- "Bias falls as ensemble size grows from two to five, with the largest gain from one to two
-- judges" (P1 D.3): size 1 is the single designs (n_possible = eligible designs; ensemble and
-- member |bias| equal, reduction 0), so the curve shows the step from one judge to two.
-- pool 'judges' = judge designs only ("P1's ensembles are of LLM judges"); 'judges+baselines'
-- rows appear only with ensemble_baselines = true, as a separate series.
-- n_unscored_designs: the study's designs of the pool's kinds (a pool names them in the plural)
-- with no scored item (every call failed, or none was made yet): no ensemble can draw them
-- (tbl_rating_performance lists them with their error_rate and note).
create or replace view tbl_ensemble_size as
select study,
       pool,
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
       round(100 * share_beats_best_member, 1) as beats_best_member_pct,
       (select count(*) from stg_rating_metrics u
        where u.study = stg_ensembles.study and u.n_items = 0
          and list_contains(string_split(stg_ensembles.pool, '+'), u.kind || 's'))
           as n_unscored_designs
from stg_ensembles
where subset = 'all' and strategy in ('model_free', 'model_fixed') and size between 1 and 5
order by study,
         sort_pos('pool', pool),
         pool,
         sort_pos('strategy', strategy),
         size;
