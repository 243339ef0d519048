-- One row per unordered pair of designs in a study: agreement, difference and choices that differ.
-- readout_a / readout_b: how each design's calls became scores ("answer" or "expected"); a
-- choice like model, prompt level and scale (differs, n_differ count it).
create or replace view stg_design_pairs as ${staging:design_pairs};
