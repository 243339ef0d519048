-- Per grading design (judge × prompt level): mean grade of right and wrong candidates, their gap, and the rating metrics against the labels.
-- Reference-guided grading: the judge reads a question, a reference answer and a candidate and
-- grades the candidate 1–5. A candidate's label (TruthfulQA's) is its truth: right → 7, wrong → 1
-- on the common 1–7 scale, where the grade sits too (1 → 1, 5 → 7).
-- grade_right / grade_wrong: the mean grade (1–5) of the candidates labelled right / wrong, over
-- ok calls, repeats averaged per item first; separation = grade_right − grade_wrong (0: the
-- judge does not tell them apart; 4: perfectly).
-- bias, mae, kripp_alpha (interval) with bootstrap 95% CIs, wilcoxon_p, p_holm: as in
-- tbl_rating_performance, the label standing in for the human rating.
-- n_failed: planned calls that failed (error, unparseable or out of range, tasks.notes.FAILED).
-- readout (last): "answer", the parsed grade; "expected", the probability-weighted grade over the
-- judge's stored distribution ([study.analysis] readouts = ["answer", "expected"]: each readout a
-- design of its own, from the same calls).
-- n_items: items with at least one ok grade. parse_fail_pct: unparseable and out-of-range
-- answers, percent of planned calls. n_right / n_wrong: the items with an ok grade whose
-- candidate is labelled right / wrong.
-- bias: mean over items of grade − label on 1–7 (below 0: graded lower than the label);
-- mae: mean over items of |grade − label|; kripp_alpha: Krippendorff's interval α of the
-- grade and the label as two coders. bias_lo / bias_hi / mae_lo / mae_hi / alpha_lo /
-- alpha_hi: the 95% percentile-bootstrap intervals of bias, mae and kripp_alpha over items
-- (null when not bootstrapped or under 2 items). wilcoxon_p: two-sided signed-rank test of
-- grade − label per item, zero differences dropped (tasks.stats.signed_rank); p_holm:
-- wilcoxon_p adjusted over the study's designs (Holm).
create or replace view tbl_grading_by_design as
with per_item as (
    select study, judge, prompt_level, scale, readout, item_id, avg(score) as grade,
           any_value(human_1to7) = 7 as correct
    from stg_grading_scores
    where status = 'ok'
    group by all
), by_label as (
    select study, judge, prompt_level, scale, readout,
           count(*) filter (where correct) as n_right,
           count(*) filter (where not correct) as n_wrong,
           avg(grade) filter (where correct) as grade_right,
           avg(grade) filter (where not correct) as grade_wrong
    from per_item
    group by all
)
select m.study,
       m.judge,
       m.prompt_level,
       m.scale,
       m.n_items,
       cast(round(m.n_planned * (m.parse_failure_rate + m.error_rate)) as bigint) as n_failed,
       round(100 * m.parse_failure_rate, 1) as parse_fail_pct,
       coalesce(l.n_right, 0) as n_right,
       coalesce(l.n_wrong, 0) as n_wrong,
       round(l.grade_right, 3) as grade_right,
       round(l.grade_wrong, 3) as grade_wrong,
       round(l.grade_right - l.grade_wrong, 3) as separation,
       round(m.bias, 3) as bias,
       round(m.bias_lo, 3) as bias_lo,
       round(m.bias_hi, 3) as bias_hi,
       round(m.mae, 3) as mae,
       round(m.mae_lo, 3) as mae_lo,
       round(m.mae_hi, 3) as mae_hi,
       m.wilcoxon_p,
       m.p_holm,
       round(m.kripp_alpha, 3) as kripp_alpha,
       round(m.alpha_lo, 3) as alpha_lo,
       round(m.alpha_hi, 3) as alpha_hi,
       m.model,
       design_note(m.n_items, cast(round(m.n_planned * (m.parse_failure_rate + m.error_rate))
                                   as bigint), m.n_planned, 'item', ['wilcoxon', 'bootstrap'])
           as note,
       m.readout
from stg_grading_metrics m
left join by_label l using (study, judge, prompt_level, scale, readout)
order by m.study, m.judge, sort_pos('prompt_level', m.prompt_level), m.prompt_level, m.readout;
