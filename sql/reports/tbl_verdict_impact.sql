-- Table 17: how far apart are the levels of one design choice in accuracy and leniency? Percent.
-- Paper (E.2): "Table 17 reports average and maximum pairwise impact for each design choice; for
-- reasoning effort, both values coincide because it has only two settings." So the pairs are of
-- levels: each level's accuracy and leniency is first averaged over the other choices
-- (stg_verdict_levels, every judge once: its efforts, then its prompt levels averaged; shown in
-- tbl_verdict_impact_levels), then mean and max |difference| over the pairs of levels, all items.
-- A two-level choice has one pair, so mean = max. Every judge is a level of model, with or
-- without effort control; reasoning effort has only the judges with real efforts ("n/a" is none).
-- A row per choice with two or more levels. choice: model (the judge), prompt_level or
-- reasoning_effort; n_levels: the choice's levels with an accuracy. mean_acc_diff_pct /
-- max_acc_diff_pct: the mean and the largest |accuracy difference| over the pairs of levels,
-- percentage points; mean_leniency_diff_pct / max_leniency_diff_pct: the mean and the largest
-- |leniency difference| over the pairs of levels, percentage points.
-- Tests, over the single-choice design pairs (tbl_verdict_impact_pairs): n_pairs: the pairs of
-- designs that differ in this choice alone; sig_pct: percent of the pairs with McNemar p < 0.05;
-- sig_holm_pct / sig_bh_pct: percent of the pairs significant after Holm / Benjamini–Hochberg (FDR
-- 5%) over the family of all the study's pairs; equivalent: TOST at ±margin_pct points per pair,
-- counted and decided per choice: "yes" every pair equivalent, "no" one shown beyond the margin,
-- else
-- "inconclusive" (fct_verdict_choice_tests). margin_pct: the equivalence margin, points of
-- accuracy ([study.analysis] equivalence_margin, default 5). n_equivalent / n_not_equivalent /
-- n_inconclusive: the pairs whose 90% CI of the accuracy difference lies inside the margin /
-- wholly beyond it / neither (or fewer than two shared items).
-- n_unscored_designs: the study's designs with no scored item (every call failed, none was made
-- yet, or no verdict resolved against a truth): no level or pair counts them
-- (tbl_accuracy_by_design lists them with their error_rate and note).
create or replace view tbl_verdict_impact as
with unscored as (
    select study, count(*) as n
    from stg_accuracy_metrics
    where subset = 'all' and n_scored = 0
    group by study
),
lv as (
    select study, choice, level, accuracy, leniency
    from stg_verdict_levels
    where subset = 'all'
),
gaps as (
    select a.study,
           a.choice,
           avg(abs(a.accuracy - b.accuracy)) as mean_acc,
           max(abs(a.accuracy - b.accuracy)) as max_acc,
           avg(abs(a.leniency - b.leniency)) as mean_len,
           max(abs(a.leniency - b.leniency)) as max_len
    from lv a
    join lv b on b.study = a.study and b.choice = a.choice and a.level < b.level
    group by a.study, a.choice
),
choices as (
    select study, choice, count(accuracy) as n_levels
    from lv
    group by study, choice
    having count(*) >= 2
)
select l.study,
       l.choice,
       l.n_levels,
       round(100 * g.mean_acc, 1) as mean_acc_diff_pct,
       round(100 * g.max_acc, 1) as max_acc_diff_pct,
       round(100 * g.mean_len, 1) as mean_leniency_diff_pct,
       round(100 * g.max_len, 1) as max_leniency_diff_pct,
       t.n_pairs,
       round(100 * t.n_sig / t.n_pairs, 1) as sig_pct,
       round(100 * t.n_sig_holm / t.n_pairs, 1) as sig_holm_pct,
       round(100 * t.n_sig_bh / t.n_pairs, 1) as sig_bh_pct,
       round(100 * t.margin, 1) as margin_pct,
       t.n_equivalent,
       t.n_not_equivalent,
       t.n_inconclusive,
       t.equivalent,
       coalesce(u.n, 0) as n_unscored_designs
from choices l
left join gaps g on g.study = l.study and g.choice = l.choice
left join fct_verdict_choice_tests t on t.study = l.study and t.choice = l.choice
left join unscored u on u.study = l.study
order by l.study, sort_pos('choice', l.choice);
