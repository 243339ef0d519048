-- Per study, the sequential sum of squares and eta² of each source of judge-score variance.
create or replace view stg_variance_components as
select study, component, df, ss, eta_sq
from read_parquet('${warehouse}/variance_components/*.parquet', union_by_name = true);
