-- Figure 5: does averaging three LLM judge designs cut |bias| and MAE, per ensemble strategy?
-- "P1's ensembles are of LLM judges" (D.3): pool 'judges' draws members from judge designs
-- only; pool 'judges+baselines' (only with [study.analysis] ensemble_baselines = true) lets
-- classifier baselines join too and is always its own rows, never mixed into 'judges'.
-- Strategies (D.3): "Model (Free) allows prompt and scale to differ; the other strategies hold
-- the remaining settings identical", and "The unrestricted three-configuration rule, which
-- allowed repeated models, was excluded": a Model (Free) or Model (Fixed) triple takes three
-- different models. [study.analysis] ensemble_distinct says what a model is: "model" (default,
-- the paper's rule) the judge's litellm model string, so two judges of one model (another
-- temperature or reasoning effort) never share a triple; "judge" each judge counts as a model.
-- subset: 'all' designs, or 'without <scale>' (analysis.outlier_scale, default bipolar3 = −3..3;
-- only when the study has that scale): "Figure 5 reports results for Sentiment, Toxicity, and
-- Toxicity with the -3–3 outlier scale excluded" (the triples drawn again from the other scales).
-- member_abs_bias: mean over ensembles of the mean over members of each member's own |bias|.
-- n_unscored_designs: the study's designs of the pool's kinds (a pool names them in the plural)
-- with no scored item (every call failed, or none was made yet): no ensemble can draw them
-- (tbl_rating_performance lists them with their error_rate and note).
create or replace view tbl_ensembles as
select study,
       subset,
       pool,
       strategy,
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
from stg_ensembles
where size = 3
order by study,
         subset <> 'all',
         subset,
         sort_pos('pool', pool),
         pool,
         sort_pos('strategy', strategy),
         strategy;
