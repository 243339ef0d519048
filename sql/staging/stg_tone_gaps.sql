-- One row per study × judge × prompt level × rewriter × axis: the gap A − B, computed by
-- tasks/tone/analysis.py (bootstrap CI, Wilcoxon with Holm / BH p over the study's gap tests,
-- repeat-noise yardstick, wins, verdict flips). n_calls / n_failed / n_error: the calls on
-- both versions, those that failed, those that ended in a provider error (null in a part
-- written before they were counted: warehouse.ADDED).
create or replace view stg_tone_gaps as ${staging:tone_gaps};
