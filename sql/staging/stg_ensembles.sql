-- One row per study × subset × pool × strategy × size: mean |bias| and MAE of ensembles beside their members'.
create or replace view stg_ensembles as
select study, subset, pool, strategy, size, n_possible, n_evaluated, member_abs_bias,
       ensemble_abs_bias, bias_reduction_pct, member_mae, ensemble_mae, mae_reduction_pct,
       share_beats_best_member
from read_parquet('${warehouse}/ensembles/*.parquet', union_by_name = true);
