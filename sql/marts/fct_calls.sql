-- One row per planned judgment (a plan row: design × item × repeat) joined with the stored result of its call (judgments of identical requests share one call and its key): design, status, raw answer, cost inputs.
create or replace view fct_calls as
select p.study, p.judge, p.model, p.task, p.prompt_level, p.prompt_version, p.scale, p.item_id,
       p."repeat", p.key,
       coalesce(j.status, 'missing') as status, j.score, j.raw, j.answers, j.error, j.attempts,
       j.latency_s, j.prompt_tokens, j.completion_tokens, j.cost_usd, j.run_id, j.created_at
from stg_plan p
left join stg_judgments j using (key);
