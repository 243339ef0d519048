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
-- n_unscored_designs: designs no ensemble can draw (fct_ensembles).
-- pool: the designs members come from: judges (LLM judge designs only) or judges+baselines
-- (classifier baselines too; only with ensemble_baselines = true).
-- strategy: how an ensemble's members are chosen: model_free (different models, prompt level,
-- scale and readout free; the paper's Model (Free)), model_fixed (different models at one
-- prompt level, scale and readout), scale (one judge at one prompt level, different scales) or
-- prompt (one judge on one scale, different prompt levels).
-- An ensemble's score per item is its members' mean, over the items all members scored (1–7).
-- member_mae: mean over ensembles of the mean over members of each member's own MAE on the items
-- all members scored; ensemble_mae: mean over ensembles of the ensemble's MAE, mean |ensemble −
-- human|. mae_reduction_pct: 100 × (1 − ensemble_mae ÷ member_mae), null when member_mae is 0.
-- beats_best_member_pct: percent of the ensembles whose |bias| is below that of their least biased
-- member.
create or replace view tbl_ensembles as
select * exclude (size)
from fct_ensembles
where size = 3
order by study,
         subset <> 'all',
         subset,
         sort_pos('pool', pool),
         pool,
         sort_pos('strategy', strategy),
         strategy;
