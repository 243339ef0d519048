-- How reliable is a score averaged over n models, n prompts and n scales (pairwise: n answer
-- orders)? The D-study of generalizability theory, projected from the random-effects variance
-- components of tbl_variance_components (method random_ems; item = object of measurement, every
-- facet random), for 1–5 judges × 1–3 prompt levels × 1–4 scales (1–2 orders); a facet with one
-- level in the study stays at 1. The paper recommends "aggregating results across two to three
-- models and designs"; this says what that buys.
-- n_judges, n_prompt_levels, n_scales, n_orders: the conditions of each facet averaged over
-- (n_scales null for a pairwise study, n_orders null for a rating study).
-- n_readouts (last, appended): 1–2 readouts averaged when a rating study reads each call two
-- ways ([study.analysis] readouts = ["answer", "expected"]; a design choice like the others,
-- the paper's "answer extraction"), else null.
-- var_item: σ²(item), the universe-score variance (how much items truly differ).
-- var_rel_error: σ²(δ), each item × facet component divided by the conditions averaged over.
-- var_abs_error: σ²(Δ), σ²(δ) plus the facets' main effects and facet × facet terms likewise.
-- g_relative: Eρ² = σ²(item) / (σ²(item) + σ²(δ)), reliability of the items' ranking.
-- phi: Φ = σ²(item) / (σ²(item) + σ²(Δ)), reliability of the items' absolute scores.
create or replace view tbl_d_study as
select study,
       n_judges,
       n_prompt_levels,
       n_scales,
       n_orders,
       var_item,
       var_rel_error,
       var_abs_error,
       round(g_relative, 3) as g_relative,
       round(phi, 3) as phi,
       n_readouts
from stg_d_study
order by study, n_judges, n_prompt_levels, n_scales nulls first, n_orders nulls first,
         n_readouts nulls first;
