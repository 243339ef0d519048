-- Items whose consensus label differs from the reference, most confident first (label errors?).
-- A confident consensus against the reference is a candidate label error.
-- votes says who voted (consensus_votes: "model" one vote per judge, "design" one per design);
-- n_voters of them had a vote, share_true of those said TRUE.
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
