-- How many rewrites pass every check, per rewriter × axis × pole, and which checks fail.
-- Only passing versions are scored; a low pass rate (a small LLM rewriter) is shown, not hidden.
-- rewriter: who wrote the versions: lexical (judgelab's rule-based rewriter) or the LLM
-- rewriter, by its [rewriter] name. axis: the style axis the versions move along
-- (prompts/tone/axes/<axis>.toml: confidence, fluency, verbosity, formatting).
-- pole: the end of the axis the versions are written toward (high / low, native / non_native,
-- padded / unpadded, bullets / prose). n_versions: the versions with a text (a rewrite call
-- that failed has none and is not counted); n_passed: the versions that pass every check;
-- pass_pct: n_passed, percent of n_versions.
-- The failed_ counts are versions failing one check (a version can fail several;
-- tasks/tone/checks.py). failed_facts: versions with a number, date, amount or name lost or
-- added; failed_length: versions whose word count is outside the pole's range (default ±
-- [study.tone] length_tolerance, 5%); failed_direction: versions whose tone did not move toward
-- the pole (its marker lexicon, or bullet lines and bold spans); failed_mtld: versions whose
-- lexical diversity (MTLD) did not move the way the pole asks (a pole that asks nothing
-- passes); failed_similarity: versions whose embedding cosine to the original is below
-- [study.tone] similarity_min (default 0.9); failed_words: versions that drop or add more of
-- the original's words than the pole allows (only poles with such limits).
create or replace view tbl_rewrite_pass_rates as
with per_version as (
    select v.study, c.version_id, c.rewriter, c.axis, c.pole, bool_and(passed) as ok,
           bool_or(not passed and "check" = 'facts') as failed_facts,
           bool_or(not passed and "check" = 'length') as failed_length,
           bool_or(not passed and "check" = 'direction') as failed_direction,
           bool_or(not passed and "check" = 'mtld') as failed_mtld,
           bool_or(not passed and "check" = 'similarity') as failed_similarity,
           bool_or(not passed and "check" = 'words') as failed_words
    from stg_rewrite_checks c
    join stg_tone_versions v using (version_id)
    group by v.study, c.version_id, c.rewriter, c.axis, c.pole
)
select study, rewriter, axis, pole, count(*) as n_versions, count(*) filter (where ok) as n_passed,
       round(100 * avg(ok::int), 1) as pass_pct,
       count(*) filter (where failed_facts) as failed_facts,
       count(*) filter (where failed_length) as failed_length,
       count(*) filter (where failed_direction) as failed_direction,
       count(*) filter (where failed_mtld) as failed_mtld,
       count(*) filter (where failed_similarity) as failed_similarity,
       count(*) filter (where failed_words) as failed_words
from per_version
group by study, rewriter, axis, pole
order by study, rewriter, axis, pole;
