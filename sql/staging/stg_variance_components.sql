-- Per study, the sequential sum of squares and eta² of each source of judge-score variance.
create or replace view stg_variance_components as ${staging:variance_components};
