-- Every planned TRUE/FALSE judge call of an accuracy study, with its status, verdict and reference.
create or replace view stg_verdicts as ${staging:verdicts};
