-- Individual human ratings (one row per rater per item).
create or replace view stg_ratings as ${staging:ratings};
