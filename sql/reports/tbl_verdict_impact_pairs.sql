-- Pairwise, not Table 17's level means: mean/max |Δaccuracy| over single-choice design pairs.
-- Accuracy studies, and pairwise studies with a human preference (a call right when its winner
-- is the preferred answer; tasks/pairwise/verdict_tests.py).
-- Unlike tbl_verdict_impact, which first averages each level over the other choices, this
-- averages |accuracy_a − accuracy_b| over every pair of designs that differ in that one choice
-- (stg_verdict_pairs), so mean ≠ max even for a two-level choice. A judge without effort control
-- ("n/a") pairs with each effort design of another judge at the same prompt level.
-- n_pairs: the pairs of designs that differ in this choice alone. mean_abs_acc_diff_pct /
-- max_abs_acc_diff_pct: the mean and the largest over them of |accuracy_a − accuracy_b|, each
-- pair's accuracies on the items both resolved that have a truth (pairwise: a human
-- preference), percentage points.
-- sig_pct: percent of the pairs with McNemar p < 0.05; sig_holm_pct / sig_bh_pct: percent of the
-- pairs significant after Holm / Benjamini–Hochberg (FDR 5%) over the family of all the study's
-- pairs; a pair without shared items counts as not significant.
-- equivalent: TOST at ±margin_pct points on each pair's per-item correctness differences,
-- counted and decided per choice as in fct_verdict_choice_tests. margin_pct: the equivalence
-- margin, points of accuracy ([study.analysis] equivalence_margin, default 5). n_equivalent /
-- n_not_equivalent / n_inconclusive: the pairs whose 90% CI of the accuracy difference lies
-- inside the margin / wholly beyond it / neither (or fewer than two shared items).
-- n_unscored_designs: the study's designs with no scored item (every call failed, none was made
-- yet, or no verdict resolved against a truth): in no pair here (tbl_accuracy_by_design lists
-- them with their error_rate and note).
create or replace view tbl_verdict_impact_pairs as
with unscored as (
    select study, count(*) as n
    from stg_accuracy_metrics
    where subset = 'all' and n_scored = 0
    group by study
)
select p.study,
       p.choice,
       count(*) as n_pairs,
       round(100 * avg(p.abs_acc_diff), 1) as mean_abs_acc_diff_pct,
       round(100 * max(p.abs_acc_diff), 1) as max_abs_acc_diff_pct,
       round(100 * any_value(t.n_sig) / count(*), 1) as sig_pct,
       round(100 * any_value(t.n_sig_holm) / count(*), 1) as sig_holm_pct,
       round(100 * any_value(t.n_sig_bh) / count(*), 1) as sig_bh_pct,
       round(100 * any_value(t.margin), 1) as margin_pct,
       any_value(t.n_equivalent) as n_equivalent,
       any_value(t.n_not_equivalent) as n_not_equivalent,
       any_value(t.n_inconclusive) as n_inconclusive,
       any_value(t.equivalent) as equivalent,
       coalesce(any_value(u.n), 0) as n_unscored_designs
from stg_verdict_pairs p
join fct_verdict_choice_tests t on t.study = p.study and t.choice = p.choice
left join unscored u on u.study = p.study
group by p.study, p.choice
order by p.study, sort_pos('choice', p.choice);
