-- One row per design × non-empty probability bin: calls, mean probability, observed frequency.
create or replace view stg_calibration_bins as ${staging:calibration_bins};
