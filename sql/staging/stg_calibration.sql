-- One row per accuracy or pairwise design: Brier, ECE and the calls behind them (calibration).
create or replace view stg_calibration as ${staging:calibration};
