-- TruthfulQA candidates with the reference answer each is graded against (tasks/grading/items.py).
create or replace view stg_grading_items as
select item_id, benchmark, domain, question_id, question, reference_answer, answer, correct,
       source, text
from read_parquet('${warehouse}/grading_items/*.parquet', union_by_name = true);
