-- Per study, the sequential sum of squares and eta² of each source of judge-score variance
-- (method type1_anova), and the G-study's random-effects components (method random_ems): the
-- full crossed ANOVA's mean square ms, the EMS estimate variance (negative → 0), its share
-- variance_share of the summed components, and a note.
create or replace view stg_variance_components as ${staging:variance_components};
