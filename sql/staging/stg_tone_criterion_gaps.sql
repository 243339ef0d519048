-- One row per tone comparison × rubric criterion: the gap A − B of the 1–4 criterion score,
-- its Wilcoxon p raw and adjusted (Holm / BH) over the study's criterion tests.
create or replace view stg_tone_criterion_gaps as
select study, judge, model, prompt_level, rewriter, axis, criterion, n_texts, mean_a,
       mean_b, gap, gap_lo, gap_hi, wilcoxon_p, wilcoxon_p_holm, wilcoxon_p_bh, rank_biserial
from read_parquet('${warehouse}/tone_criterion_gaps/*.parquet', union_by_name = true);
