-- Human ceiling per study: one rating against the mean of the item's other ratings, on 1–7.
create or replace view stg_human_ceiling as ${staging:human_ceiling};
