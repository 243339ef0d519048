-- One row per study × judge × prompt level × rewriter × axis: the gap A − B, computed by
-- tasks/tone/analysis.py (bootstrap CI, Wilcoxon with Holm / BH p over the study's gap tests,
-- repeat-noise yardstick, wins, verdict flips). n_calls / n_failed / n_error: the calls on
-- both versions, those that failed, those that ended in a provider error (null in a part
-- written before they were counted: warehouse.ADDED).
create or replace view stg_tone_gaps as
select study, judge, model, prompt_level, rewriter, axis, pole_a, pole_b, threshold,
       ok_rate_a, ok_rate_b, n_calls, n_failed, n_error, n_texts, mean_a, mean_b, gap, gap_lo,
       gap_hi, wilcoxon_p, wilcoxon_p_holm, wilcoxon_p_bh, rank_biserial, noise_sd,
       repeats_hmean, noise_yardstick,
       gap_to_noise, distinguishable, n_a_wins, n_b_wins, n_ties, win_ratio, n_flip_a_pass,
       n_flip_b_pass, share_flip_a_pass, share_flip_b_pass, n_a_orig, gap_a_orig, gap_a_orig_lo,
       gap_a_orig_hi, n_b_orig, gap_b_orig, gap_b_orig_lo, gap_b_orig_hi
from read_parquet('${warehouse}/tone_gaps/*.parquet', union_by_name = true);
