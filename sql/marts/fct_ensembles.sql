-- Every ensemble row (subset × pool × strategy × size) with its figures rounded as the report shows them; tbl_ensembles and tbl_ensemble_size select from it.
-- n_unscored_designs: the study's designs of the pool's kinds (a pool names them in the plural)
-- with no scored item (every call failed, or none was made yet), other than the scale a
-- 'without <scale>' subset leaves out: no ensemble can draw them (tbl_rating_performance lists
-- them with their error_rate and note).
create or replace view fct_ensembles as
select study,
       subset,
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
          and list_contains(string_split(stg_ensembles.pool, '+'), u.kind || 's')
          and 'without ' || u.scale <> stg_ensembles.subset)
           as n_unscored_designs
from stg_ensembles;
