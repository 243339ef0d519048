-- One row per tone comparison × pass mark: pass shares of both poles and the two flip shares.
create or replace view stg_tone_threshold_sweep as ${staging:tone_threshold_sweep};
