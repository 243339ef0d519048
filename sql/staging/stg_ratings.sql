-- Individual human ratings (one row per rater per item).
create or replace view stg_ratings as
select item_id, rater, rating
from read_parquet('${warehouse}/ratings/*.parquet', union_by_name = true);
