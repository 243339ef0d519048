-- How closely do designs agree with one another? Pairwise interval α and MAD per study and kinds.
-- n_unscored_designs: the study's designs of these kinds with no scored item (every call
-- failed, or none was made yet): they are in no pair here (tbl_rating_performance lists them).
-- kinds: the kinds of the pair's two designs, joined in alphabetical order: judge-judge,
-- baseline-judge or baseline-baseline (a baseline is an offline classifier scored as a judge).
-- n_pairs: the unordered pairs of the study's scored designs with these kinds (sharing an item or
-- not). mean_alpha / min_alpha / max_alpha: the mean, min and max over the pairs of interval
-- Krippendorff's α, the two designs as coders over the items both scored (1: perfect agreement);
-- mean_mad: the mean over the pairs of MAD, the mean |a − b| per item both scored (1–7).
create or replace view tbl_judge_agreement as
with grouped as (
    select study,
           least(kind_a, kind_b) || '-' || greatest(kind_a, kind_b) as kinds,
           count(*) as n_pairs,
           round(avg(alpha), 3) as mean_alpha,
           round(min(alpha), 3) as min_alpha,
           round(max(alpha), 3) as max_alpha,
           round(avg(mad), 3) as mean_mad
    from stg_design_pairs
    group by study, kinds
)
select g.*,
       (select count(*) from stg_rating_metrics u
        where u.study = g.study and u.n_items = 0
          and list_contains(string_split(g.kinds, '-'), u.kind)) as n_unscored_designs
from grouped g
order by study, kinds;
