-- Per study, the D-study: G coefficients of a score averaged over n judges × n prompt levels ×
-- n scales (pairwise: × n orders), from the study's random-effects variance components.
create or replace view stg_d_study as ${staging:d_study};
