-- Shares of designs beyond each threshold, per study × kind × subset × grouping × group.
create or replace view stg_threshold_shares as ${staging:threshold_shares};
