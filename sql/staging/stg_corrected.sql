-- Judge-corrected estimates per design, computed by tasks/corrected.py (see schemas/corrected.py):
-- judge-only, prediction-powered, Rogan–Gladen (verdicts) and human-only means with 95% CIs.
create or replace view stg_corrected as ${staging:corrected};
