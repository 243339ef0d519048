-- Figure 6: how |bias| and MAE fall as ensembles of different LLM judges grow from 1 to 5 members.
-- "Bias falls as ensemble size grows from two to five, with the largest gain from one to two
-- judges" (P1 D.3): size 1 is the single designs (n_possible = eligible designs; ensemble and
-- member |bias| equal, reduction 0), so the curve shows the step from one judge to two.
-- pool 'judges' = judge designs only ("P1's ensembles are of LLM judges"); 'judges+baselines'
-- rows appear only with ensemble_baselines = true, as a separate series.
-- n_unscored_designs: designs no ensemble can draw (fct_ensembles).
-- pool: the designs members come from: judges (LLM judge designs only) or judges+baselines
-- (classifier baselines too; only with ensemble_baselines = true).
-- strategy: how an ensemble's members are chosen: model_free (different models, prompt level,
-- scale and readout free; the paper's Model (Free)), model_fixed (different models at one
-- prompt level, scale and readout), scale (one judge at one prompt level, different scales) or
-- prompt (one judge on one scale, different prompt levels).
-- member_abs_bias: mean over ensembles of the mean over members of each member's own |bias|.
-- An ensemble's score per item is its members' mean, over the items all members scored (1–7).
-- member_mae: mean over ensembles of the mean over members of each member's own MAE on the items
-- all members scored; ensemble_mae: mean over ensembles of the ensemble's MAE, mean |ensemble −
-- human|. mae_reduction_pct: 100 × (1 − ensemble_mae ÷ member_mae), null when member_mae is 0.
-- beats_best_member_pct: percent of the ensembles whose |bias| is below that of their least biased
-- member.
create or replace view tbl_ensemble_size as
select * exclude (subset)
from fct_ensembles
where subset = 'all' and strategy in ('model_free', 'model_fixed') and size between 1 and 5
order by study,
         sort_pos('pool', pool),
         pool,
         sort_pos('strategy', strategy),
         size;
