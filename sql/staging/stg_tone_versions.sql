-- Every original and style rewrite of the tone test, with its rewriter and call status.
create or replace view stg_tone_versions as ${staging:tone_versions};
