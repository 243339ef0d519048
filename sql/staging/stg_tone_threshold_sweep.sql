-- One row per tone comparison × pass mark: pass shares of both poles and the two flip shares.
create or replace view stg_tone_threshold_sweep as
select study, judge, model, prompt_level, rewriter, axis, threshold, n_texts, pass_share_a,
       pass_share_b, share_flip_a_pass, share_flip_b_pass
from read_parquet('${warehouse}/tone_threshold_sweep/*.parquet', union_by_name = true);
