-- Is the triple best on half A still good on half B, beside all triples and the best single design?
-- Triples come from judge designs only ("P1's ensembles are of LLM judges", D.3); pool
-- 'judges+baselines' rows (ensemble_baselines = true) also let classifier baselines join.
-- pool: the designs members come from: judges (LLM judge designs only) or judges+baselines
-- (classifier baselines too; only with ensemble_baselines = true).
-- strategy: how an ensemble's members are chosen: model_free (different models, prompt level,
-- scale and readout free; the paper's Model (Free)), model_fixed (different models at one
-- prompt level, scale and readout), scale (one judge at one prompt level, different scales) or
-- prompt (one judge on one scale, different prompt levels).
-- The study's items are split at random (seeded) into halves A and B; the triple with the
-- lowest |bias| on A is chosen. abs_bias_a / mae_a: the chosen triple's |bias| and MAE on half
-- A, where it was picked; abs_bias_b / mae_b: the same triple's on half B, items it was not
-- picked on (null when its members share no item there). single_abs_bias_a / single_abs_bias_b: the
-- |bias| on half A and on half B of best_single, the design of those triples least biased on A.
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
