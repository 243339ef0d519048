-- One row per study × item: the voters' votes, agreement subset, consensus label and reference.
create or replace view stg_consensus as
select study, item_id, votes, n_designs, n_voters, n_true, share_true, agreement, subset,
       consensus_label, reference, consensus_matches_reference
from read_parquet('${warehouse}/consensus/*.parquet', union_by_name = true);
