-- Human ceiling per study: one rating against the mean of the item's other ratings, on 1–7.
create or replace view stg_human_ceiling as
select study, n_items, n_pairs, n_raters, bias, abs_bias, bias_lo, bias_hi, mae, mae_lo, mae_hi,
       alpha, alpha_lo, alpha_hi
from read_parquet('${warehouse}/human_ceiling/*.parquet', union_by_name = true);
