-- Per-design metrics with the paper's ordering of prompt levels and scales.
-- n_failed: planned calls that failed (error, unparseable or out of range: tasks.notes.FAILED),
-- counted back from the two rates rating_metrics gives over n_planned (exact: each is a count
-- ÷ n_planned). readout: as in stg_rating_metrics (last, as it was added last).
create or replace view fct_rating_metrics as
select m.* exclude (readout),
       cast(round(m.n_planned * (m.parse_failure_rate + m.error_rate)) as bigint) as n_failed,
       sort_pos('prompt_level', m.prompt_level) as level_order,
       sort_pos('scale', m.scale) as scale_order,
       m.readout
from stg_rating_metrics m;
