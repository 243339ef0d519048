-- One row per study × judge × effort × in-context level × subset: switches against base.
create or replace view stg_switch_rates as ${staging:switch_rates};
