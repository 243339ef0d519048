-- Table 12 analogue: how far apart are any two designs, pooled ('all') and by how many choices differ?
-- Following the paper (D.4): "Table 12 compares every pair among all 120 designs, regardless of
-- how many settings differ; its values are average and maximum absolute differences on the 1–7
-- scale. The table caption defines n as the number of pairwise comparisons used for each
-- average." That is the row n_differ = 'all' (every pair of the study and kinds); the rows
-- '1' to '4' split the same pairs by how many of judge, prompt level, scale and readout differ.
-- n_compared: pairs sharing at least one item, the n behind mean_abs_diff / max_abs_diff
-- (|mean difference|, 1–7); n_pairs: all pairs, the denominator of every share (percent; a pair
-- without a test counts as not significant). Wilcoxon p per pair: exact null distribution for
-- ≤ 50 differences with no zero and no tie, else the normal approximation with tie and
-- continuity corrections (tasks.stats.signed_rank). sig_holm_pct / sig_bh_pct: significant
-- after Holm / Benjamini–Hochberg (5%) over the family of every pair of designs of the study.
-- sig_pct: percent of the pairs with Wilcoxon p < 0.05. meaningful_pct: percent of the pairs
-- with |mean difference| above analysis.meaningful_diff (default 0.2); equivalent_pct: percent
-- of the pairs whose TOST 90% CI lies inside ±analysis.equivalence_margin (default 0.2). Cuts via
-- tasks/cuts.py.
-- n_differ: how many of judge, prompt level, scale and readout the row's pairs differ in, '1'
-- to '4', or 'all' for every pair of the study and kinds pooled.
-- kinds: the kinds of the pair's two designs, joined in alphabetical order: judge-judge,
-- baseline-judge or baseline-baseline (a baseline is an offline classifier scored as a judge).
-- mean_abs_diff / max_abs_diff: the mean and the largest, over the n_compared pairs, of the
-- pair's |mean difference| (mean of a − b over the items both scored, 1–7).
-- n_unscored_designs: the study's designs of these kinds with no scored item (every call
-- failed, or none was made yet): they are in no pair here (tbl_rating_performance lists them
-- with their error_rate and note).
create or replace view tbl_design_impact_all_pairs as
with pairs as (
    select *, least(kind_a, kind_b) || '-' || greatest(kind_a, kind_b) as kinds
    from stg_design_pairs
),
grouped as (
    select study,
           kinds,
           n_differ,
           grouping(n_differ) as pooled,
           count(*) as n_pairs,
           count(abs_diff) as n_compared,
           100 * count_if(sig) / count(*) as sig_pct,
           100 * count_if(below(p_holm, 0.05)) / count(*) as sig_holm_pct,
           100 * count_if(below(p_bh, 0.05)) / count(*) as sig_bh_pct,
           100 * count_if(meaningful) / count(*) as meaningful_pct,
           100 * count_if(equivalent = 'yes') / count(*) as equivalent_pct,
           avg(abs_diff) as mean_abs_diff,
           max(abs_diff) as max_abs_diff
    from pairs
    group by grouping sets ((study, kinds, n_differ), (study, kinds))
)
select study,
       kinds,
       case when pooled = 1 then 'all' else cast(n_differ as varchar) end as n_differ,
       n_pairs,
       n_compared,
       round(sig_pct, 1) as sig_pct,
       round(sig_holm_pct, 1) as sig_holm_pct,
       round(sig_bh_pct, 1) as sig_bh_pct,
       round(meaningful_pct, 1) as meaningful_pct,
       round(equivalent_pct, 1) as equivalent_pct,
       round(mean_abs_diff, 3) as mean_abs_diff,
       round(max_abs_diff, 3) as max_abs_diff,
       (select count(*) from stg_rating_metrics u
        where u.study = grouped.study and u.n_items = 0
          and list_contains(string_split(grouped.kinds, '-'), u.kind)) as n_unscored_designs
from grouped
order by study, kinds, pooled, grouped.n_differ;
