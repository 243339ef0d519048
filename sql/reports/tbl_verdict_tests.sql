-- Does a design choice change correctness? Chi-square of correctness × choice (design × item
-- rows, treated as independent: a screen) and Cochran's Q over all designs on items all resolved.
create or replace view tbl_verdict_tests as
select study,
       test,
       choice,
       n_levels,
       n_obs,
       round(statistic, 3) as statistic,
       dof,
       p,
       round(cramers_v, 3) as cramers_v,
       case when sig then 'yes' when sig is null then null else 'no' end as sig
from stg_verdict_tests
order by study, list_position(['chi2_independence', 'cochran_q'], test),
         list_position(['model', 'prompt_level', 'reasoning_effort', 'design'], choice);
