-- Is the triple best on half A still good on half B, beside all triples and the best single design?
-- Triples come from judge designs only ("P1's ensembles are of LLM judges", D.3); pool
-- 'judges+baselines' rows (ensemble_baselines = true) also let classifier baselines join.
create or replace view tbl_ensemble_holdout as
select study,
       pool,
       strategy,
       n_evaluated,
       members,
       round(abs_bias_a, 3) as abs_bias_a,
       round(abs_bias_b, 3) as abs_bias_b,
       round(mae_a, 3) as mae_a,
       round(mae_b, 3) as mae_b,
       round(triples_abs_bias_b, 3) as triples_abs_bias_b,
       best_single,
       round(single_abs_bias_a, 3) as single_abs_bias_a,
       round(single_abs_bias_b, 3) as single_abs_bias_b
from stg_ensemble_holdout
order by study,
         sort_pos('pool', pool),
         pool,
         sort_pos('strategy', strategy),
         strategy;
