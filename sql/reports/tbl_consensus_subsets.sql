-- How many items do the voters agree on fully, nearly or not; how often is that the reference?
-- Percent. votes: [study.analysis] consensus_votes, the voters: "model" (default) gives each judge
-- one vote, the majority of its designs, so a judge run at two reasoning efforts does not outvote
-- one run at one; "design" gives every design a vote. An item with fewer voters than min_designs is
-- 'ambiguous' with no label, even at agreement 1.0 (one voter agreeing with itself): the run and
-- the report say "One voter: no consensus" (tasks/accuracy/consensus.py one_voter_notes).
-- subset: the items by consensus agreement: all (every item), full (every voter agrees), near
-- (at least analysis.near_agreement of the voters, default 0.9, but not all) or ambiguous (the
-- rest, and items with fewer than analysis.min_designs voters).
-- n_items: the subset's items (every item a design was asked about); items_pct: n_items as a
-- percent of the study's items. n_with_reference: the subset's items with a reference label;
-- n_compared: the subset's items with both a reference and a consensus label. match_pct: percent of
-- the n_compared items whose consensus label equals the reference (null when n_compared = 0).
-- mean_agreement: the mean over the subset's items with a voter of the agreement, the share of
-- voters on the majority side, max(share TRUE, 1 − share TRUE): 0.5 to 1.
create or replace view tbl_consensus_subsets as
with per_subset as (
    select study,
           votes,
           coalesce(subset, 'all') as subset,
           count(*) as n_items,
           count(reference) as n_with_reference,
           count(consensus_matches_reference) as n_compared,
           count_if(consensus_matches_reference) as n_match,
           avg(agreement) as mean_agreement
    from stg_consensus
    group by grouping sets ((study, votes, subset), (study, votes))
)
select p.study,
       p.votes,
       p.subset,
       p.n_items,
       round(100 * p.n_items / t.n_items, 1) as items_pct,
       p.n_with_reference,
       p.n_compared,
       round(100 * p.n_match / nullif(p.n_compared, 0), 1) as match_pct,
       round(p.mean_agreement, 3) as mean_agreement
from per_subset p
join per_subset t on t.study = p.study and t.votes = p.votes and t.subset = 'all'
order by p.study, sort_pos('subset', p.subset);
