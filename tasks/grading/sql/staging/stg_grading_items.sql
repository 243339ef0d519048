-- TruthfulQA candidates with the reference answer each is graded against (tasks/grading/items.py).
create or replace view stg_grading_items as ${staging:grading_items};
