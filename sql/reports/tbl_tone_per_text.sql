-- Per text and judge: each version's mean score and repeat SD (noise), and the gap A − B.
-- a_mean / a_sd: the mean score and repeat SD of pole A's version (the axis's first pole, as
-- in tbl_tone_gaps' contrast: high, native, padded, bullets); b_mean / b_sd: the same of pole
-- B's (low, non_native, unpadded, prose);
-- gap = a_mean − b_mean (null unless both have an ok score). Which pole is A comes from the
-- gap table of the same comparison (stg_tone_gaps), so every axis has its numbers, the ones
-- whose pole B is the text as written (verbosity, formatting) included. original_mean: the
-- unrewritten original's mean, for reference.
-- rewriter: who wrote the versions: lexical (judgelab's rule-based rewriter) or the LLM
-- rewriter, by its [rewriter] name. axis: the style axis the versions move along
-- (prompts/tone/axes/<axis>.toml: confidence, fluency, verbosity, formatting).
-- text_id: the text (this study's item) the versions rewrite.
create or replace view tbl_tone_per_text as
with poles as (
    select distinct study, judge, prompt_level, rewriter, axis, pole_a, pole_b
    from stg_tone_gaps
),
v as (
    select s.*, o.mean_overall as original_mean, p.pole_a, p.pole_b
    from stg_tone_version_scores s
    left join (
        select distinct study, judge, prompt_level, text_id, mean_overall
        from stg_tone_version_scores where pole = 'original'
    ) o using (study, judge, prompt_level, text_id)
    left join poles p using (study, judge, prompt_level, rewriter, axis)
    where s.pole <> 'original'
)
select study, judge, prompt_level, rewriter, axis, text_id,
       round(max(original_mean), 2) as original_mean,
       round(max(mean_overall) filter (where pole = pole_a), 2) as a_mean,
       round(max(sd_overall) filter (where pole = pole_a), 2) as a_sd,
       round(max(mean_overall) filter (where pole = pole_b), 2) as b_mean,
       round(max(sd_overall) filter (where pole = pole_b), 2) as b_sd,
       round(max(mean_overall) filter (where pole = pole_a)
             - max(mean_overall) filter (where pole = pole_b), 2) as gap
from v
group by study, judge, prompt_level, rewriter, axis, text_id
order by study, judge, prompt_level, rewriter, axis, text_id;
