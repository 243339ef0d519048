-- Table 7 analogue: what share of designs differ from humans, per task, prompt level and model (percent).
-- Percent of the row's designs with at least one scored item; a design without a test counts as
-- not significant. Cuts (tasks/cuts.py, tolerance 1e-9, so 0.20000000000000004 is on 0.2):
-- Wilcoxon p < 0.05, |bias| > 0.2 and > 0.3, MAE > 0.5, |rank-biserial r| ≥ 0.3.
-- Wilcoxon p per design: exact null distribution for ≤ 50 differences with no zero and no tie,
-- else the normal approximation with tie and continuity corrections (tasks.stats.signed_rank).
-- sig_holm_pct / sig_bh_pct: significant after Holm (family-wise 5%) / Benjamini–Hochberg (FDR
-- 5%); the family is every design of the row's study and kind tested against the humans.
-- grouping: what the row's designs are grouped by: all (every design, group "(all)"),
-- prompt_level, model (one group per judge) or readout (only when the study has two readouts).
-- n_designs: the group's designs with at least one scored item, the shares' denominator.
-- sig_pct: percent of the group's designs with Wilcoxon p < 0.05 (unadjusted); bias_gt_02_pct
-- / bias_gt_03_pct: percent with |bias| (judge − human, 1–7) above 0.2 / 0.3; mae_gt_05_pct:
-- percent with MAE above 0.5; medium_large_pct: percent with a medium-to-large effect,
-- |rank-biserial r| ≥ 0.3.
create or replace view tbl_threshold_shares as
select study, kind, grouping, "group", n_designs,
       round(100 * share_sig, 1) as sig_pct,
       round(100 * share_sig_holm, 1) as sig_holm_pct,
       round(100 * share_sig_bh, 1) as sig_bh_pct,
       round(100 * share_bias_gt_02, 1) as bias_gt_02_pct,
       round(100 * share_bias_gt_03, 1) as bias_gt_03_pct,
       round(100 * share_mae_gt_05, 1) as mae_gt_05_pct,
       round(100 * share_medium_large, 1) as medium_large_pct
from stg_threshold_shares
where subset = 'all'
order by study, kind, sort_pos('grouping', grouping),
         sort_pos('prompt_level', "group"), "group";
