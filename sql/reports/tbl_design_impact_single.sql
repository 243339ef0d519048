-- Does changing one design choice alone (model, prompt level or scale) move the scores?
-- Shares are of all pairs in the row: a pair without a test (p null) counts as not significant.
create or replace view tbl_design_impact_single as
select study,
       least(kind_a, kind_b) || '-' || greatest(kind_a, kind_b) as kinds,
       differs as choice,
       count(*) as n_pairs,
       round(100 * count_if(sig) / count(*), 1) as sig_pct,
       round(100 * count_if(meaningful) / count(*), 1) as meaningful_pct,
       round(avg(abs_diff), 3) as mean_abs_diff,
       round(max(abs_diff), 3) as max_abs_diff
from stg_design_pairs
where n_differ = 1
group by study, kinds, choice
order by study, kinds, list_position(['model', 'prompt_level', 'scale'], choice);
