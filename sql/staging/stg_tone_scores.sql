-- One row per tone-test evaluation call: an original or rewritten text, scored by a judge.
create or replace view stg_tone_scores as ${staging:tone_scores};
