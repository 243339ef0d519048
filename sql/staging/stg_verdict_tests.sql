-- One row per study × test × choice: chi-square (correctness × choice), Cochran's Q.
create or replace view stg_verdict_tests as ${staging:verdict_tests};
