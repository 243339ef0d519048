-- One row per study × subset × design choice × level: accuracy and leniency over the others.
create or replace view stg_verdict_levels as
select study, subset, choice, level, n_judges, n_designs, accuracy, leniency
from read_parquet('${warehouse}/verdict_levels/*.parquet', union_by_name = true);
