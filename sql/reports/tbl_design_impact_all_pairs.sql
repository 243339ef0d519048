-- How much do scores move as more design choices change at once (1, 2 or all 3 differ)?
-- Shares are of all pairs in the row: a pair without a test (p null) counts as not significant.
create or replace view tbl_design_impact_all_pairs as
select study,
       least(kind_a, kind_b) || '-' || greatest(kind_a, kind_b) as kinds,
       n_differ,
       count(*) as n_pairs,
       round(100 * count_if(sig) / count(*), 1) as sig_pct,
       round(100 * count_if(meaningful) / count(*), 1) as meaningful_pct,
       round(avg(abs_diff), 3) as mean_abs_diff,
       round(max(abs_diff), 3) as max_abs_diff
from stg_design_pairs
group by study, kinds, n_differ
order by study, kinds, n_differ;
