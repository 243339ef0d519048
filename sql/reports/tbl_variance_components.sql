-- Which source explains most of the judge-score variance in a study (eta², sequential SS)?
-- Rating studies: judge, prompt level, scale, item; pairwise studies with a human preference:
-- right-or-wrong of each call over judge, prompt level, order (ab/ba) and pair (item).
create or replace view tbl_variance_components as
select study,
       component,
       df,
       round(100 * eta_sq, 1) as eta_sq_pct
from stg_variance_components
order by study, eta_sq desc nulls last, component;
