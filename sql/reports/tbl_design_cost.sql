-- Requests, tokens and cost per design cell, plus an "(all)" total row per judge.
create or replace view tbl_design_cost as
select study, judge, prompt_level, scale, reasoning_effort, n_planned, n_stored, requests,
       prompt_tokens, completion_tokens, round(cost_usd, 4) as cost_usd
from (
    select study, judge, prompt_level, scale, reasoning_effort, n_planned, n_stored, requests,
           prompt_tokens, completion_tokens, cost_usd, level_order, scale_order
    from fct_design_costs
    union all
    select study, judge, '(all)', '(all)', '(all)', sum(n_planned), sum(n_stored), sum(requests),
           sum(prompt_tokens), sum(completion_tokens), sum(cost_usd), 100, 100
    from fct_design_costs
    group by study, judge
)
order by study, judge, level_order, prompt_level, scale_order, scale, reasoning_effort;
