-- One row per unordered pair of designs in a study: agreement, difference and choices that differ.
create or replace view stg_design_pairs as ${staging:design_pairs};
