-- Paper table: each design against the human ratings on the common 1–7 scale.
-- sig: Wilcoxon p < 0.05; effect: |rank-biserial r| ≥ 0.5 large, ≥ 0.3 medium, ≥ 0.1 small.
create or replace view tbl_rating_performance as
select study,
       judge,
       prompt_level,
       scale,
       n_items,
       round(100 * parse_failure_rate, 1) as parse_fail_pct,
       round(bias, 3) as bias,
       round(mae, 3) as mae,
       wilcoxon_p,
       round(rank_biserial, 3) as rank_biserial,
       case when wilcoxon_p < 0.05 then 'yes' when wilcoxon_p is null then null else 'no' end as sig,
       case when rank_biserial is null then null
            when abs(rank_biserial) >= 0.5 then 'large'
            when abs(rank_biserial) >= 0.3 then 'medium'
            when abs(rank_biserial) >= 0.1 then 'small'
            else 'negligible' end as effect,
       round(kripp_alpha, 3) as kripp_alpha
from fct_rating_metrics
order by study, judge, level_order, prompt_level, scale_order, scale;
