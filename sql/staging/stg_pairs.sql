-- Every pair a pairwise study judges: the shared context, answers A and B, the human preference.
create or replace view stg_pairs as
select study, pair_id, domain, context, answer_a, answer_b, preferred, source
from read_parquet('${warehouse}/pairs/*.parquet', union_by_name = true);
