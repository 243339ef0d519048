-- How far one human rater sits from the mean of the other raters (leave-one-rater-out), per task.
-- Bias is 0 by construction (the leave-one-out differences of an item sum to 0); MAE and α are
-- the reference for judges. In VADER a "rater" is a rating's position, not a person.
-- mae_lo / mae_hi / alpha_lo / alpha_hi: the 95% percentile-bootstrap intervals of mae and
-- alpha, resampling items with all their pairs (null when not bootstrapped or under 2 items).
create or replace view tbl_human_ceiling as
select study, n_items, n_pairs, n_raters,
       round(mae, 3) as mae, round(mae_lo, 3) as mae_lo, round(mae_hi, 3) as mae_hi,
       round(alpha, 3) as alpha, round(alpha_lo, 3) as alpha_lo, round(alpha_hi, 3) as alpha_hi,
       round(bias, 3) as bias
from stg_human_ceiling
order by study;
