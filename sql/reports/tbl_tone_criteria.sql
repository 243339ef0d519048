-- Which rubric criteria carry the tone gap? Per criterion (1–4), the mean gap A − B over texts
-- scored on both versions, with its 95% bootstrap CI and the paired Wilcoxon p.
create or replace view tbl_tone_criteria as
select study,
       evaluator,
       prompt_variant,
       rewriter,
       axis,
       criterion,
       n_texts,
       round(mean_a, 3) as mean_a,
       round(mean_b, 3) as mean_b,
       round(gap, 3) as gap,
       round(gap_lo, 3) as gap_lo,
       round(gap_hi, 3) as gap_hi,
       wilcoxon_p,
       round(rank_biserial, 3) as rank_biserial
from stg_tone_criterion_gaps
order by study, evaluator,
         coalesce(list_position(['plain', 'style_attention', 'fact_first'], prompt_variant), 99),
         prompt_variant, rewriter = 'lexical' desc, rewriter,
         coalesce(list_position(['confidence', 'fluency'], axis), 99), axis, criterion;
