-- Does the judge track humans on the original texts, and is its tone gap larger for better or
-- worse texts? Spearman rho (p) of the original's mean score with the human rating, and of the
-- per-text gap A − B with the human rating (rho > 0: the gap grows with human-rated quality).
-- Multiple comparisons ("If the differences look random, the evaluator is more robust"): each
-- p column is its own family, that column's tests in the study (one per row: judges ×
-- prompt levels × rewriters × axes), adjusted by Holm (_holm) and Benjamini–Hochberg (_bh).
-- Comparisons that share their texts repeat the same p_original test, so its correction is
-- conservative.
-- rewriter: who wrote the versions: lexical (judgelab's rule-based rewriter) or the LLM
-- rewriter, by its [rewriter] name. axis: the style axis the versions move along
-- (prompts/tone/axes/<axis>.toml: confidence, fluency, verbosity, formatting).
-- p_original: the two-sided p of rho_original (null under 3 texts or with a constant side);
-- p_original_holm / p_original_bh: p_original adjusted by Holm / Benjamini–Hochberg.
-- p_gap_human: the two-sided p of rho_gap_human (null under 3 texts or with a constant side);
-- p_gap_human_holm / p_gap_human_bh: p_gap_human adjusted by Holm / Benjamini–Hochberg.
create or replace view tbl_tone_human as
select study,
       judge,
       prompt_level,
       rewriter,
       axis,
       n_originals,
       round(rho_original, 3) as rho_original,
       p_original,
       p_original_holm,
       p_original_bh,
       n_texts,
       round(rho_gap_human, 3) as rho_gap_human,
       p_gap_human,
       p_gap_human_holm,
       p_gap_human_bh
from stg_tone_human_relation
order by study, judge,
         sort_pos('prompt_level', prompt_level),
         prompt_level, rewriter = 'lexical' desc, rewriter,
         sort_pos('axis', axis), axis;
