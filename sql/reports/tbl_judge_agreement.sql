-- How closely do designs agree with one another? Pairwise interval α and MAD per study and kinds.
create or replace view tbl_judge_agreement as
select study,
       least(kind_a, kind_b) || '-' || greatest(kind_a, kind_b) as kinds,
       count(*) as n_pairs,
       round(avg(alpha), 3) as mean_alpha,
       round(min(alpha), 3) as min_alpha,
       round(max(alpha), 3) as max_alpha,
       round(avg(mad), 3) as mean_mad
from stg_design_pairs
group by study, kinds
order by study, kinds;
