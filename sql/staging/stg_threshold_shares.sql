-- Shares of designs beyond each threshold, per study × kind × subset × grouping × group.
create or replace view stg_threshold_shares as
select study, kind, subset, grouping, "group", n_designs, share_sig, share_sig_holm,
       share_sig_bh, share_bias_gt_02, share_bias_gt_03, share_mae_gt_05, share_medium_large,
       mean_bias, mean_abs_bias, mean_mae, min_bias, max_bias, abs_bias_h, abs_bias_df, abs_bias_p
from read_parquet('${warehouse}/threshold_shares/*.parquet', union_by_name = true);
