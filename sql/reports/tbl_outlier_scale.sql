-- Tables 9–10 analogue: threshold shares and averages with and without the outlier scale; big moves flagged.
-- The outlier scale is the study setting analysis.outlier_scale. flagged: the paper's bold,
-- as Table 9's caption has it ("The caption identifies bold values as differences of at least
-- 15 percentage points or 0.05 in mean absolute bias."): a change of ≥ 15 points in a share
-- (significant, |bias| > 0.2 / 0.3, MAE > 0.5, medium-to-large effect) or of ≥ 0.05 in mean
-- |bias|. flagged_broad: judgelab's wider net, not the paper's: flagged, or a change of
-- ≥ 0.05 in mean signed bias or in mean MAE. Both cuts go through the at_least macro
-- (tasks/cuts.py): a change of 14.999999999999993 points is 15.
-- sig_holm_all / sig_holm_without / sig_bh_all / sig_bh_without: the share significant after Holm /
-- Benjamini–Hochberg (5%) over the family the study tests, its designs of one kind against the
-- humans (Wilcoxon p per design: exact distribution for ≤ 50 differences with no zero and no tie,
-- else normal approximation with tie and continuity corrections); shown, not part of flagged.
-- grouping: what the row's designs are grouped by: all (every design, group "(all)"),
-- prompt_level, model (one group per judge) or readout (only when the study has two readouts).
-- Each measure comes twice: _all over the group's designs with a scored item, _without over
-- those less the ones on the outlier scale. without: the subset compared, "without <scale>".
-- n_all / n_without: the designs with a scored item, all / less the outlier scale's.
-- sig_all / sig_without: percent of the designs with Wilcoxon p < 0.05; bias02_all /
-- bias02_without: percent with |bias| > 0.2 (1–7); bias03_all / bias03_without: percent with
-- |bias| > 0.3; mae05_all / mae05_without: percent with MAE > 0.5; ml_all / ml_without:
-- percent with a medium-to-large effect, |rank-biserial r| ≥ 0.3. bias_all / bias_without:
-- the designs' mean bias (judge − human, 1–7); abs_bias_all / abs_bias_without: their mean
-- |bias|; mae_all / mae_without: their mean MAE.
create or replace view tbl_outlier_scale as
with pairs as (
    select a.study, a.kind, a.grouping, a."group", w.subset as without,
           a.n_designs as n_all, w.n_designs as n_without,
           100 * a.share_sig as sig_all, 100 * w.share_sig as sig_without,
           100 * a.share_sig_holm as sig_holm_all, 100 * w.share_sig_holm as sig_holm_without,
           100 * a.share_sig_bh as sig_bh_all, 100 * w.share_sig_bh as sig_bh_without,
           100 * a.share_bias_gt_02 as bias02_all, 100 * w.share_bias_gt_02 as bias02_without,
           100 * a.share_bias_gt_03 as bias03_all, 100 * w.share_bias_gt_03 as bias03_without,
           100 * a.share_mae_gt_05 as mae05_all, 100 * w.share_mae_gt_05 as mae05_without,
           100 * a.share_medium_large as ml_all, 100 * w.share_medium_large as ml_without,
           a.mean_bias as bias_all, w.mean_bias as bias_without,
           a.mean_abs_bias as abs_bias_all, w.mean_abs_bias as abs_bias_without,
           a.mean_mae as mae_all, w.mean_mae as mae_without
    from stg_threshold_shares a
    join stg_threshold_shares w
      on w.study = a.study and w.kind = a.kind and w.grouping = a.grouping
     and w."group" = a."group" and w.subset like 'without %'
    where a.subset = 'all'
),
moves as (
    select *,
           at_least(greatest(abs(sig_all - sig_without), abs(bias02_all - bias02_without),
                             abs(bias03_all - bias03_without), abs(mae05_all - mae05_without),
                             abs(ml_all - ml_without)), 15) as share_moved,
           at_least(abs(abs_bias_all - abs_bias_without), 0.05) as abs_bias_moved,
           at_least(greatest(abs(bias_all - bias_without), abs(mae_all - mae_without)), 0.05)
               as other_mean_moved
    from pairs
)
select study, kind, grouping, "group", without, n_all, n_without,
       round(sig_all, 1) as sig_all, round(sig_without, 1) as sig_without,
       round(sig_holm_all, 1) as sig_holm_all, round(sig_holm_without, 1) as sig_holm_without,
       round(sig_bh_all, 1) as sig_bh_all, round(sig_bh_without, 1) as sig_bh_without,
       round(bias02_all, 1) as bias02_all, round(bias02_without, 1) as bias02_without,
       round(bias03_all, 1) as bias03_all, round(bias03_without, 1) as bias03_without,
       round(mae05_all, 1) as mae05_all, round(mae05_without, 1) as mae05_without,
       round(ml_all, 1) as ml_all, round(ml_without, 1) as ml_without,
       round(bias_all, 3) as bias_all, round(bias_without, 3) as bias_without,
       round(abs_bias_all, 3) as abs_bias_all, round(abs_bias_without, 3) as abs_bias_without,
       round(mae_all, 3) as mae_all, round(mae_without, 3) as mae_without,
       share_moved or abs_bias_moved as flagged,
       share_moved or abs_bias_moved or other_mean_moved as flagged_broad
from moves
order by study, kind, sort_pos('grouping', grouping),
         sort_pos('prompt_level', "group"), "group";
