-- At each pass mark, how often does a text's verdict depend on its tone? Percent of texts whose
-- version A passes (mean ≥ threshold) while version B fails, the reverse, and their difference
-- (net > 0: the style of pole A buys passes), with both poles' pass rates.
-- rewriter: who wrote the versions: lexical (judgelab's rule-based rewriter) or the LLM
-- rewriter, by its [rewriter] name. axis: the style axis the versions move along
-- (prompts/tone/axes/<axis>.toml: confidence, fluency, verbosity, formatting).
-- threshold: the pass mark on the 1–10 overall score, swept from 1 to 10 in steps of 0.5.
-- pass_a_pct / pass_b_pct: percent of the texts whose A / B version's mean score is at least
-- the threshold. flip_a_pass_pct: percent of the texts whose A version passes and B version
-- fails; flip_b_pass_pct: percent of the texts whose B version passes and A version fails;
-- net_flip_pct = flip_a_pass_pct − flip_b_pass_pct.
create or replace view tbl_tone_flips as
select study,
       judge,
       prompt_level,
       rewriter,
       axis,
       threshold,
       n_texts,
       round(100 * pass_share_a, 1) as pass_a_pct,
       round(100 * pass_share_b, 1) as pass_b_pct,
       round(100 * share_flip_a_pass, 1) as flip_a_pass_pct,
       round(100 * share_flip_b_pass, 1) as flip_b_pass_pct,
       round(100 * (share_flip_a_pass - share_flip_b_pass), 1) as net_flip_pct
from stg_tone_threshold_sweep
order by study, judge,
         sort_pos('prompt_level', prompt_level),
         prompt_level, rewriter = 'lexical' desc, rewriter,
         sort_pos('axis', axis), axis, threshold;
