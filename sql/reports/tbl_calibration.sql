-- How sure was the judge, and was it right to be? Per design of an accuracy or pairwise study,
-- the judge's probability of the event (event: TRUE for a verdict, A — the answer shown first is
-- better — for a pairwise winner), read from the distribution it gave over the scale's values
-- (the store's probs, normalised over the scale's categories; a pairwise tie's mass counts
-- against A), against the truth: the item's truth for accuracy (reference label, else the
-- designs' consensus, as the accuracy tables grade), the human preference for pairwise (a pair
-- the human called a tie has none). No major judge tool reports calibration (issue 29).
-- n_ok: answered calls = n_no_probs (no distribution: the judge gave none) + n_no_truth + n_scored;
-- every number is over the n_scored calls (n_units items or pairs). mean_p: mean probability of
-- the event; observed: share of scored calls where it was true. brier: mean (p − y)², 0 best,
-- 0.25 for always saying 0.5. ece: expected calibration error over n_bins equal-width bins of p
-- (scikit-learn's calibration_curve bins), Σ (bin calls ÷ n_scored) × |bin mean p − bin
-- observed|; ece_lo / ece_hi: its 95% percentile-bootstrap interval over items (pairs), repeats
-- and orders moving with their item; ECE is biased upward at small n, so the interval sits above
-- 0 even for a calibrated judge. ece_null_hi: the ECE a judge calibrated by construction with
-- the same probabilities exceeds 5% of the time (consistency resampling, the calls of an item
-- or pair sharing one truth, so repeats are not independent evidence); miscalibrated: ece >
-- ece_null_hi. Each design's reliability diagram is in tbl_calibration_bins.
-- note: why a design has no numbers (no distribution stored, no truth), or why no interval.
-- study_type: accuracy or pairwise, which sets the event. event: the answer whose probability
-- is calibrated: TRUE (accuracy) or A, the answer shown first is better (pairwise).
-- reasoning_effort: the reasoning effort the judge was asked for ("default": none sent, the
-- provider's own; "n/a": the provider has no such control).
create or replace view tbl_calibration as
select study,
       study_type,
       judge,
       model,
       prompt_level,
       reasoning_effort,
       event,
       n_calls,
       n_ok,
       n_no_probs,
       n_no_truth,
       n_scored,
       n_units,
       n_bins,
       round(mean_p, 4) as mean_p,
       round(observed, 4) as observed,
       round(brier, 4) as brier,
       round(ece, 4) as ece,
       round(ece_lo, 4) as ece_lo,
       round(ece_hi, 4) as ece_hi,
       round(ece_null_hi, 4) as ece_null_hi,
       miscalibrated,
       case
           when n_ok = 0 then 'no answered call'
           when n_scored = 0 and n_no_probs = n_ok
               then 'no probabilities: the judge stored no distribution over the scale'
           when n_scored = 0 then 'no call with both a distribution and a truth'
           when n_units < 2 then 'one item: no interval'
           when ece_lo is null then 'no bootstrap ([study.analysis] bootstrap = 0): no interval'
       end as note
from stg_calibration
order by study, judge,
         sort_pos('prompt_level', prompt_level), prompt_level,
         reasoning_effort = 'n/a',
         sort_pos('reasoning_effort', reasoning_effort),
         reasoning_effort;
