-- How many rewrites pass every check, per rewriter × axis × pole, and which checks fail.
-- Only passing versions are scored; a low pass rate (a small LLM rewriter) is shown, not hidden.
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
