-- Which source explains most of the judge-score variance in a study (eta², sequential SS)?
-- Rating studies: judge, prompt level, scale, item (and the readout when a study reads each
-- call two ways: readouts = ["answer", "expected"]); pairwise studies with a human preference:
-- right-or-wrong of each call over judge, prompt level, order (ab/ba) and pair (item).
-- The paper: "model identity is the dominant source of variance" (design-sensitivity, §5) —
-- the random_ems rows test that claim with random effects instead of an order-dependent split.
-- method: type1_anova (sequential sums of squares, eta²; the rows before G-theory) or
-- random_ems (crossed random-effects variance components of a G-study from the expected mean
-- squares of the full crossing items × judge × prompt level × scale/order, on the largest
-- balanced subset; df and eta_sq_pct are then that ANOVA's; residual = the four-way term).
-- variance: the random-effects component σ² (score units squared; a negative estimate is 0).
-- variance_pct: that σ² as a share of the study's summed σ², %.
-- note: a negative estimate set to 0, and on the item row the balanced subset used.
-- component: the source of variance: a factor (judge, prompt_level, scale, order, readout,
-- item), an interaction of factors (e.g. judge:item) or residual. eta_sq_pct: eta², the
-- component's sum of squares as a percent of the total (null when the scores do not vary).
create or replace view tbl_variance_components as
select study,
       component,
       df,
       round(100 * eta_sq, 1) as eta_sq_pct,
       method,
       variance,
       round(100 * variance_share, 1) as variance_pct,
       note
from stg_variance_components
order by study, method desc, coalesce(variance_share, eta_sq) desc nulls last, component;
