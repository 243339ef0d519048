-- Every original and style rewrite of the tone test, with its rewriter and call status.
create or replace view stg_tone_versions as
select study, version_id, text_id, axis, pole, rewriter, model, status, text, raw
from read_parquet('${warehouse}/tone_versions/*.parquet', union_by_name = true);
