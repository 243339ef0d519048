-- One row per tone comparison: Spearman of the original's score and of the gap with humans;
-- each p also adjusted (Holm / BH) over that column's tests in the study.
create or replace view stg_tone_human_relation as ${staging:tone_human_relation};
