-- Tables 14–16 analogue (switch rates per model × subset): how many verdicts do in-context
-- examples switch wrong → right, right → wrong?
-- The paper (E.1): "Tables 13–16 report accuracy, leniency, and error counts by benchmark
-- subset and model, with directional error-switch rates for In-Context prompts relative to the
-- base prompt." and "Table 13 splits results by subset; Tables 14–16 give per-model results for
-- the full, near-agreement, and ambiguous subsets."
-- Rows per judge × effort × in-context level × subset ('all', 'full', 'near', 'ambiguous').
-- Against the same judge and effort on the base prompt. Percent of the items both designs
-- resolved that have a truth; net = accuracy change on those items. No test is made here, so no
-- share of significant tests to adjust (the same pairs' McNemar tests: tbl_verdict_impact_pairs).
-- subset: the items by consensus agreement: all (every item), full (every voter agrees), near
-- (at least analysis.near_agreement of the voters, default 0.9, but not all) or ambiguous (the
-- rest, and items with fewer than analysis.min_designs voters).
-- reasoning_effort: the reasoning effort the judge was asked for ("default": none sent, the
-- provider's own; "n/a": the provider has no such control).
-- Over the n_items items: acc_base_pct / acc_level_pct: percent right on the base prompt / at
-- the in-context level; wrong_to_right_pct: percent wrong on the base prompt and right at the
-- level; right_to_wrong_pct: the reverse; net_change_pct = wrong_to_right_pct −
-- right_to_wrong_pct, the same as acc_level_pct − acc_base_pct; true_to_false_pct: percent the
-- base prompt called TRUE and the level FALSE; false_to_true_pct: the reverse. Null when
-- n_items = 0.
create or replace view tbl_switch_rates as
select study,
       judge,
       reasoning_effort,
       prompt_level,
       subset,
       n_items,
       round(100 * accuracy_base, 1) as acc_base_pct,
       round(100 * accuracy_level, 1) as acc_level_pct,
       round(100 * wrong_to_right, 1) as wrong_to_right_pct,
       round(100 * right_to_wrong, 1) as right_to_wrong_pct,
       round(100 * net_change, 1) as net_change_pct,
       round(100 * true_to_false, 1) as true_to_false_pct,
       round(100 * false_to_true, 1) as false_to_true_pct
from stg_switch_rates
order by study, judge,
         reasoning_effort = 'n/a',
         sort_pos('reasoning_effort', reasoning_effort),
         reasoning_effort,
         sort_pos('prompt_level', prompt_level), prompt_level,
         sort_pos('subset', subset);
