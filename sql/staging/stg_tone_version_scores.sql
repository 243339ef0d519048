-- One row per tone comparison × text × pole: ok repeats, mean overall, repeat SD, pass share.
create or replace view stg_tone_version_scores as ${staging:tone_version_scores};
