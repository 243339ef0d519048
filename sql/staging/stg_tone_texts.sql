-- The tone test's sampled texts with their human score (UKP: convincingness rank).
create or replace view stg_tone_texts as
select text_id, corpus, domain, text, human_score, meta
from read_parquet('${warehouse}/tone_texts/*.parquet', union_by_name = true);
