-- One row per study × judge × design × canary batch: the shift from the reference batch and
-- the judge's own noise band, computed by tasks/drift.py (see schemas/drift.py).
create or replace view stg_drift as
select study, judge, model, prompt_level, scale, reasoning_effort, bucket, batch, reference,
       statistic, n_items, repeats, shift, shift_lo, shift_hi, noise, noise_sd, alpha,
       accuracy_change, level, flagged
from read_parquet('${warehouse}/drift/*.parquet', union_by_name = true);
