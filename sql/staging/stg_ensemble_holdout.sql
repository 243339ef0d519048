-- One row per study × pool × strategy: the triple best on half A of the items, scored on half B.
create or replace view stg_ensemble_holdout as
select study, pool, strategy, n_items_a, n_items_b, n_evaluated, members, abs_bias_a, mae_a,
       abs_bias_b, mae_b, triples_abs_bias_b, best_single, single_abs_bias_a, single_abs_bias_b
from read_parquet('${warehouse}/ensemble_holdout/*.parquet', union_by_name = true);
