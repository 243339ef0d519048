-- Items whose consensus label differs from the reference, most confident first (label errors?).
-- A confident consensus against the reference is a candidate label error.
-- votes: who voted ([study.analysis] consensus_votes: "model" one vote per judge, "design" one
-- per design); n_voters of them had a vote, share_true of those said TRUE.
-- item_id: the benchmark item's id. reference: the benchmark's own label for the item (TRUE or
-- FALSE). subset: the item's consensus subset: full (every voter agrees), near (at least
-- analysis.near_agreement of the voters, default 0.9, but not all) or ambiguous (the rest).
create or replace view tbl_consensus_disagreements as
select study,
       item_id,
       subset,
       votes,
       n_voters,
       round(share_true, 3) as share_true,
       consensus_label,
       reference
from stg_consensus
where not consensus_matches_reference
order by study, agreement desc, item_id;
