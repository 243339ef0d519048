-- Per design vs humans (1–7): bias and MAE with 95% CIs, Wilcoxon, effect size, α; the human ceiling.
-- bias: mean over items of judge − human on 1–7 (below 0: the judge rates lower); mae: mean
-- over items of |judge − human|; kripp_alpha: Krippendorff's interval α of the judge and the
-- human mean as two coders. bias_lo / bias_hi / mae_lo / mae_hi / alpha_lo / alpha_hi: the
-- 95% percentile-bootstrap intervals of bias, mae and kripp_alpha over items (null when not
-- bootstrapped or under 2 items).
-- rank_biserial: the Wilcoxon test's effect size (matched-pairs rank-biserial r).
-- wilcoxon_p: two-sided signed-rank test of judge − human per item, zero differences dropped;
-- exact null distribution for ≤ 50 differences with no zero and no tie, else the normal
-- approximation with tie and continuity corrections, never a permutation test
-- (tasks.stats.signed_rank; what pingouin 0.7 gives when told that method).
-- p_holm / p_bh: adjusted over the family of the study's designs of this kind (Holm; BH).
-- sig: Wilcoxon p < 0.05; effect: |rank-biserial r| ≥ 0.5 large, ≥ 0.3 medium, ≥ 0.1 small;
-- both through the cut macros (tasks/cuts.py): r = 0.29999999999999993 is medium.
-- repeat_sd: run-to-run noise, the SD over an item's ok repeats averaged over the items with at
-- least two (null with one repeat).
-- human_mae / human_alpha: one human rater against the mean of the others on the same items
-- (tbl_human_ceiling), the yardstick for how far a judge sits from humans.
-- n_items: items with at least one ok score (a design with none stays, its numbers null).
-- n_failed: planned calls whose stored result is a provider error, an unparseable answer or
-- an out-of-range one (tasks.notes.FAILED, as every view counts them); a call not made yet is
-- not failed. error_rate: provider errors ÷ planned calls (a judge whose every call failed:
-- 1.0); parse_fail_pct: unparseable and out-of-range answers, percent of planned calls.
-- note: the design's note (macro design_note, tasks/notes.py): "no scored item" and why, or
-- too few items for the Wilcoxon test (< 6: p < 0.05 is out of reach) or for the bootstrap
-- CIs (< 10); then a baseline's caveat (stg_baselines).
-- readout: how each call became a score: "answer" the parsed answer, "expected" Σ p·v over the
-- judge's distribution on the scale's grid ([study.analysis] readouts; same calls, no extra).
create or replace view tbl_rating_performance as
select m.study,
       m.kind,
       m.judge,
       m.prompt_level,
       m.scale,
       m.n_items,
       m.n_failed,
       round(m.error_rate, 3) as error_rate,
       round(m.repeat_sd, 3) as repeat_sd,
       round(100 * m.parse_failure_rate, 1) as parse_fail_pct,
       round(m.bias, 3) as bias,
       round(m.bias_lo, 3) as bias_lo,
       round(m.bias_hi, 3) as bias_hi,
       round(m.mae, 3) as mae,
       round(m.mae_lo, 3) as mae_lo,
       round(m.mae_hi, 3) as mae_hi,
       m.wilcoxon_p,
       m.p_holm,
       m.p_bh,
       round(m.rank_biserial, 3) as rank_biserial,
       sig_label(m.wilcoxon_p) as sig,
       case when m.rank_biserial is null then null
            when at_least(abs(m.rank_biserial), 0.5) then 'large'
            when at_least(abs(m.rank_biserial), 0.3) then 'medium'
            when at_least(abs(m.rank_biserial), 0.1) then 'small'
            else 'negligible' end as effect,
       round(m.kripp_alpha, 3) as kripp_alpha,
       round(m.alpha_lo, 3) as alpha_lo,
       round(m.alpha_hi, 3) as alpha_hi,
       round(h.mae, 3) as human_mae,
       round(h.alpha, 3) as human_alpha,
       join_notes(design_note(m.n_items, m.n_failed, m.n_planned, 'item',
                              ['wilcoxon', 'bootstrap']),
                  b.note) as note,
       m.readout
from fct_rating_metrics m
left join stg_human_ceiling h on h.study = m.study
left join stg_baselines b on b.study = m.study and b.judge = m.judge and m.kind = 'baseline'
order by m.study, m.kind desc, m.judge, m.level_order, m.prompt_level, m.scale_order, m.scale, m.readout;
