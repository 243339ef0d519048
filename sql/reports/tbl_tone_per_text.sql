-- Per text and judge: each version's mean score and repeat SD (noise), and the gap A − B.
-- Pole A is "high" (confidence) or "native" (fluency); the original is shown for reference.
create or replace view tbl_tone_per_text as
with v as (
    select s.*, o.mean_overall as original_mean
    from stg_tone_version_scores s
    left join (
        select distinct study, judge, prompt_level, text_id, mean_overall
        from stg_tone_version_scores where pole = 'original'
    ) o using (study, judge, prompt_level, text_id)
    where s.pole <> 'original'
)
select study, judge, prompt_level, rewriter, axis, text_id,
       round(max(original_mean), 2) as original_mean,
       round(max(mean_overall) filter (where pole in ('high', 'native')), 2) as a_mean,
       round(max(sd_overall) filter (where pole in ('high', 'native')), 2) as a_sd,
       round(max(mean_overall) filter (where pole in ('low', 'non_native')), 2) as b_mean,
       round(max(sd_overall) filter (where pole in ('low', 'non_native')), 2) as b_sd,
       round(max(mean_overall) filter (where pole in ('high', 'native'))
             - max(mean_overall) filter (where pole in ('low', 'non_native')), 2) as gap
from v
group by study, judge, prompt_level, rewriter, axis, text_id
order by study, judge, prompt_level, rewriter, axis, text_id;
