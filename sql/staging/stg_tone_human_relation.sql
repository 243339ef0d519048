-- One row per tone comparison: Spearman of the original's score and of the gap with humans;
-- each p also adjusted (Holm / BH) over that column's tests in the study.
create or replace view stg_tone_human_relation as
select study, judge, model, prompt_level, rewriter, axis, n_originals, rho_original,
       p_original, p_original_holm, p_original_bh, n_texts, rho_gap_human, p_gap_human,
       p_gap_human_holm, p_gap_human_bh
from read_parquet('${warehouse}/tone_human_relation/*.parquet', union_by_name = true);
