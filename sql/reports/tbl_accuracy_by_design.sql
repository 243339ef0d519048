-- The designs behind Tables 13–16: how accurate is each design, overall and per consensus subset?
-- Percent. (Table 13 is by subset: tbl_accuracy_by_prompt / _by_effort; Tables 14–16 per model ×
-- subset: tbl_accuracy_by_model.)
-- Over the items the design resolved that have a truth: acc_pct: verdicts that match the truth;
-- leniency_pct: the share of errors that are false TRUEs (null without errors); true_pct:
-- verdicts TRUE. unparseable_pct: unparseable answers, percent of every planned call. repeat_sd:
-- run-to-run noise, the SD of the design's repeat verdicts (0/1) per item, averaged over its
-- items with at least two ok repeats (all items); null when the study has repeats = 1.
-- reasoning_effort: the reasoning effort the judge was asked for ("default": none sent, the
-- provider's own; "n/a": the provider has no such control).
-- n_full / n_near / n_ambiguous: the scored items (n_scored) in one consensus subset: full,
-- every voter agrees; near, at least analysis.near_agreement of them (default 0.9) but not all;
-- ambiguous, the rest and the items with fewer than analysis.min_designs voters.
-- acc_full_pct / acc_near_pct / acc_ambiguous_pct: acc_pct over that subset's items (null when
-- it has no scored item).
-- n_items: the items scored (n_scored: resolved by the design's ok repeats, with a truth) plus
-- the planned items with no truth (n_no_truth, resolved or not), the column every per-design
-- view shares. truth_source: where the items' truth comes from: reference (the benchmark's
-- label), consensus (the voters' majority, where there is no reference or analysis.truth =
-- "consensus") or mixed (some items each).
-- n_failed: planned calls whose stored result is a provider error, an unparseable answer or an
-- out-of-range one (macro call_failed over stg_verdicts; a call not made yet is not failed);
-- error_rate: provider errors ÷ planned calls (a judge whose every call failed: 1.0).
-- note (macro design_note): a design with no scored item says so and why; the view shows no
-- test or interval, so no small-n note.
create or replace view tbl_accuracy_by_design as
with calls as (
    select study, judge, prompt_level, reasoning_effort,
           count(*) as n_planned,
           count(*) filter (where call_failed(status)) as n_failed,
           count(*) filter (where status = 'error') as n_error
    from stg_verdicts
    group by study, judge, prompt_level, reasoning_effort
)
select m.study,
       m.judge,
       m.model,
       m.prompt_level,
       m.reasoning_effort,
       max(n_scored + n_no_truth) filter (where subset = 'all') as n_items,
       max(n_scored) filter (where subset = 'all') as n_scored,
       round(100 * max(accuracy) filter (where subset = 'all'), 1) as acc_pct,
       max(n_scored) filter (where subset = 'full') as n_full,
       round(100 * max(accuracy) filter (where subset = 'full'), 1) as acc_full_pct,
       max(n_scored) filter (where subset = 'near') as n_near,
       round(100 * max(accuracy) filter (where subset = 'near'), 1) as acc_near_pct,
       max(n_scored) filter (where subset = 'ambiguous') as n_ambiguous,
       round(100 * max(accuracy) filter (where subset = 'ambiguous'), 1) as acc_ambiguous_pct,
       max(fp) filter (where subset = 'all') as fp,
       max(fn) filter (where subset = 'all') as fn,
       round(100 * max(leniency) filter (where subset = 'all'), 1) as leniency_pct,
       round(100 * max(true_rate) filter (where subset = 'all'), 1) as true_pct,
       round(100 * max(unparseable_rate) filter (where subset = 'all'), 1) as unparseable_pct,
       max(n_no_truth) filter (where subset = 'all') as n_no_truth,
       max(truth_source) filter (where subset = 'all') as truth_source,
       round(max(repeat_sd) filter (where subset = 'all'), 3) as repeat_sd,
       any_value(c.n_failed) as n_failed,
       round(any_value(c.n_error) / any_value(c.n_planned), 3) as error_rate,
       design_note(max(n_scored) filter (where subset = 'all'), any_value(c.n_failed),
                   any_value(c.n_planned), 'item', []) as note
from stg_accuracy_metrics m
left join calls c using (study, judge, prompt_level, reasoning_effort)
group by m.study, m.judge, m.model, m.prompt_level, m.reasoning_effort
order by study, judge,
         sort_pos('prompt_level', prompt_level), prompt_level,
         reasoning_effort = 'n/a',
         sort_pos('reasoning_effort', reasoning_effort),
         reasoning_effort;
