-- Which items does the designs' consensus label differently from the reference? Most confident
-- first: a confident consensus against the reference is a candidate label error.
create or replace view tbl_consensus_disagreements as
select study,
       item_id,
       subset,
       n_designs,
       round(share_true, 3) as share_true,
       consensus_label,
       reference
from stg_consensus
where not consensus_matches_reference
order by study, agreement desc, item_id;
