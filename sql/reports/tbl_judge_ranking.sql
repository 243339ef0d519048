-- Which judge agrees best with humans (interval α) in each study × prompt level × scale cell?
-- Ranked within a readout (readout: "answer" or "expected", as in tbl_rating_performance).
-- rank: the judge's place by kripp_alpha within its study × kind × prompt level × scale ×
-- readout cell, 1 = the highest α, ties sharing a place; null when its α is null. n_judges: the
-- cell's judges, ranked or not. kripp_alpha: Krippendorff's interval α of the judge and the
-- human mean as two coders. mae: mean over items of |judge − human|.
create or replace view tbl_judge_ranking as
select study,
       kind,
       prompt_level,
       scale,
       case when kripp_alpha is not null then
           rank() over (partition by study, kind, prompt_level, scale, readout
                        order by kripp_alpha desc nulls last) end as "rank",
       count(*) over (partition by study, kind, prompt_level, scale, readout) as n_judges,
       judge,
       n_items,
       round(kripp_alpha, 3) as kripp_alpha,
       round(bias, 3) as bias,
       round(mae, 3) as mae,
       readout
from fct_rating_metrics
order by study, kind desc, level_order, prompt_level, scale_order, scale, readout,
         "rank" nulls last, judge;
