-- The tone test's sampled texts with their human score (UKP: convincingness rank).
create or replace view stg_tone_texts as ${staging:tone_texts};
