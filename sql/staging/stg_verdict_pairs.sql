-- One row per pair of designs differing in one choice: accuracies, McNemar, TOST equivalence.
create or replace view stg_verdict_pairs as ${staging:verdict_pairs};
