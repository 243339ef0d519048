-- Figure 6: how |bias| and MAE fall as ensembles of different LLM judges grow from 1 to 5 members.
-- "Bias falls as ensemble size grows from two to five, with the largest gain from one to two
-- judges" (P1 D.3): size 1 is the single designs (n_possible = eligible designs; ensemble and
-- member |bias| equal, reduction 0), so the curve shows the step from one judge to two.
-- pool 'judges' = judge designs only ("P1's ensembles are of LLM judges"); 'judges+baselines'
-- rows appear only with ensemble_baselines = true, as a separate series.
-- n_unscored_designs: designs no ensemble can draw (fct_ensembles).
create or replace view tbl_ensemble_size as
select * exclude (subset)
from fct_ensembles
where subset = 'all' and strategy in ('model_free', 'model_fixed') and size between 1 and 5
order by study,
         sort_pos('pool', pool),
         pool,
         sort_pos('strategy', strategy),
         size;
