-- Table 11 analogue: does changing one design choice alone (model, prompt level, scale or readout) move the scores?
-- readout (when the study lists two readouts): the same calls read as the parsed answer and as
-- the expected score Σ p·v over the judge's distribution, no extra call.
-- Following the paper (D.4): "Table 11 measures how often judges differ significantly or
-- meaningfully when one design choice changes and others remain fixed."
-- choice: the one design choice the row's pairs differ in: model (the judge), prompt_level,
-- scale or readout.
-- n_pairs: the pairs of designs of the study and kinds that differ in exactly that choice;
-- n_compared: the pairs sharing at least one item, the n behind mean_abs_diff / max_abs_diff.
-- Shares are percent of all n_pairs: a pair without a test (p null) counts as not significant.
-- Wilcoxon p per pair (paired over shared items, zero differences dropped): exact null
-- distribution for ≤ 50 differences with no zero and no tie, else the normal approximation with tie
-- and continuity corrections (tasks.stats.signed_rank). sig_pct: percent of the pairs with
-- p < 0.05; sig_holm_pct / sig_bh_pct: after Holm / Benjamini–Hochberg (5%) over the family of
-- every pair of designs of the study (all choices, all kinds). meaningful_pct: percent of the
-- pairs with |mean difference| above analysis.meaningful_diff (default 0.2). Cuts via
-- tasks/cuts.py (a difference of 0.20000000000000004 is on the cut).
-- Equivalence: a paired TOST per pair against ±analysis.equivalence_margin (default 0.2 points);
-- equivalent_pct / not_equivalent_pct / inconclusive_pct: pairs whose 90% CI lies inside the
-- margin / wholly beyond it / neither (or < 2 shared items). equivalent: 'yes' when every
-- pair of the row is equivalent (the choice did not matter anywhere it was changed: an
-- intersection–union test, 5% for the row as a whole), 'no' when at least one pair
-- shows a difference beyond the margin, else 'inconclusive'.
-- n_unscored_designs: the study's designs of these kinds with no scored item (every call
-- failed, or none was made yet): they are in no pair here (tbl_rating_performance lists them
-- with their error_rate and note).
-- kinds: the kinds of the pair's two designs, joined in alphabetical order: judge-judge,
-- baseline-judge or baseline-baseline (a baseline is an offline classifier scored as a judge).
-- mean_abs_diff / max_abs_diff: the mean and the largest, over the n_compared pairs, of the
-- pair's |mean difference| (mean of a − b over the items both scored, 1–7).
create or replace view tbl_design_impact_single as
with grouped as (
    select study,
           least(kind_a, kind_b) || '-' || greatest(kind_a, kind_b) as kinds,
           differs as choice,
           count(*) as n_pairs,
           count(abs_diff) as n_compared,
           round(100 * count_if(sig) / count(*), 1) as sig_pct,
           round(100 * count_if(below(p_holm, 0.05)) / count(*), 1) as sig_holm_pct,
           round(100 * count_if(below(p_bh, 0.05)) / count(*), 1) as sig_bh_pct,
           round(100 * count_if(meaningful) / count(*), 1) as meaningful_pct,
           round(100 * count_if(equivalent = 'yes') / count(*), 1) as equivalent_pct,
           round(100 * count_if(equivalent = 'no') / count(*), 1) as not_equivalent_pct,
           round(100 * count_if(equivalent = 'inconclusive') / count(*), 1) as inconclusive_pct,
           case when count_if(equivalent = 'yes') = count(*) then 'yes'
                when count_if(equivalent = 'no') > 0 then 'no'
                else 'inconclusive' end as equivalent,
           round(avg(abs_diff), 3) as mean_abs_diff,
           round(max(abs_diff), 3) as max_abs_diff
    from stg_design_pairs
    where n_differ = 1
    group by study, kinds, choice
)
select g.*,
       (select count(*) from stg_rating_metrics u
        where u.study = g.study and u.n_items = 0
          and list_contains(string_split(g.kinds, '-'), u.kind)) as n_unscored_designs
from grouped g
order by study, kinds, sort_pos('choice', choice);
