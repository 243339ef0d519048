-- One row per study × test × choice: chi-square (correctness × choice), Cochran's Q.
create or replace view stg_verdict_tests as
select study, test, choice, n_levels, n_obs, statistic, dof, p, cramers_v, sig, p_holm, p_bh
from read_parquet('${warehouse}/verdict_tests/*.parquet', union_by_name = true);
