-- The reliability diagram of each design in tbl_calibration: one row per non-empty equal-width
-- bin of the judge's probability of the event. bin: 0 = lowest; bin_lo / bin_hi: its edges
-- ((bin_lo, bin_hi], the first from 0); n: scored calls in the bin; mean_p: their mean
-- probability; observed: the share of them where the event was true. A calibrated judge's bins
-- lie on the diagonal observed = mean_p; a bin below it: the event is rarer than the judge says.
-- study_type: accuracy (the event is a TRUE verdict) or pairwise (the event is A, the answer
-- shown first is better).
-- reasoning_effort: the reasoning effort the judge was asked for ("default": none sent, the
-- provider's own; "n/a": the provider has no such control).
create or replace view tbl_calibration_bins as
select study,
       study_type,
       judge,
       model,
       prompt_level,
       reasoning_effort,
       bin,
       bin_lo,
       bin_hi,
       n,
       round(mean_p, 4) as mean_p,
       round(observed, 4) as observed
from stg_calibration_bins
order by study, judge,
         sort_pos('prompt_level', prompt_level), prompt_level,
         reasoning_effort = 'n/a',
         sort_pos('reasoning_effort', reasoning_effort),
         reasoning_effort, bin;
