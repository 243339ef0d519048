-- Table 17's levels: each level's accuracy and leniency, averaged over the other choices. Percent.
-- Unweighted means of the designs' accuracy and leniency (stg_verdict_levels), nested so every
-- judge counts once: model = a judge's mean over its prompt levels of its mean over its efforts;
-- prompt_level = the mean over all judges of each one's mean over its efforts at that level;
-- reasoning_effort = the mean over the judges with real efforts ("n/a" is none) of each one's
-- mean over its prompt levels. Per subset; n_judges and n_designs are those with an accuracy.
-- subset: the items by consensus agreement: all (every item), full (every voter agrees), near
-- (at least analysis.near_agreement of the voters, default 0.9, but not all) or ambiguous (the
-- rest, and items with fewer than analysis.min_designs voters).
-- acc_pct: the level's accuracy, percent; leniency_pct: the level's leniency, the share of
-- errors that are false TRUEs, percent (null when no design behind it erred).
create or replace view tbl_verdict_impact_levels as
select study,
       subset,
       choice,
       level,
       n_judges,
       n_designs,
       round(100 * accuracy, 1) as acc_pct,
       round(100 * leniency, 1) as leniency_pct
from stg_verdict_levels
order by study, sort_pos('subset', subset),
         sort_pos('choice', choice),
         sort_pos(choice, level),  -- a prompt level or an effort, in its own order
         level;
