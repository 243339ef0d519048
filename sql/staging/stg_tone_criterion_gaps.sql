-- One row per tone comparison × rubric criterion: the gap A − B of the 1–4 criterion score,
-- its Wilcoxon p raw and adjusted (Holm / BH) over the study's criterion tests.
create or replace view stg_tone_criterion_gaps as ${staging:tone_criterion_gaps};
