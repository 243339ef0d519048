-- Does the prompt change the tone gap? The gap A − B [95% CI] under the plain prompt, the
-- style-attention prompt (positive control: it asks the judge to weigh style, so a gap should
-- show) and the fact-first prompt (a defence), side by side. control_shows_gap: the
-- style_attention CI excludes 0 (if not, the rewrites may be too weak to test anything);
-- defence_removes_gap: plain's CI excludes 0 and fact_first's contains it ('n/a': no plain gap);
-- fact_first_left_pct: fact_first's gap in percent of plain's when plain has one. A CI end on 0
-- (within 1e-9) counts as containing 0.
-- Multiple comparisons ("If the differences look random, the evaluator is more robust"), over
-- the family of tbl_tone_gaps (every gap test of the study): control_shows_gap_holm /
-- control_shows_gap_bh: 'yes' when style_attention's Wilcoxon p after Holm / Benjamini–Hochberg is
-- below 0.05; defence_removes_gap_holm / defence_removes_gap_bh: 'yes' when plain's adjusted p is
-- below 0.05 ('n/a' if not) and fact_first's unadjusted p is not. The absence of a gap is judged
-- without adjustment on purpose: adjusting would make "no gap left" easier to claim, not harder.
-- Other prompt levels are in tbl_tone_gaps.
-- n_plain / n_style_attention / n_fact_first: texts scored on both versions under that prompt
-- level. n_failed: the three levels' calls that failed (provider error, unparseable, out of
-- range); error_rate: provider errors ÷ the three levels' planned calls, as in tbl_tone_gaps.
-- note: each level's note (macro design_note, e.g. "plain: Wilcoxon over 3 texts: …"), joined
-- by "; ".
-- rewriter: who wrote the versions: lexical (judgelab's rule-based rewriter) or the LLM
-- rewriter, by its [rewriter] name. axis: the style axis the versions move along
-- (prompts/tone/axes/<axis>.toml: confidence, fluency, verbosity, formatting).
-- contrast: pole A vs pole B of the axis (as in tbl_tone_gaps). gap_plain / plain_lo /
-- plain_hi: the gap A − B (mean over texts of mean score A − mean score B, 1–10) under the
-- plain prompt and its 95% bootstrap CI over texts; gap_style_attention / style_attention_lo /
-- style_attention_hi: the gap A − B and its 95% bootstrap CI under the style-attention prompt;
-- gap_fact_first / fact_first_lo / fact_first_hi: the gap A − B and its 95% bootstrap CI under
-- the fact-first prompt.
create or replace view tbl_tone_by_variant as
with wide as (
    select study, judge, rewriter, axis,
           any_value(pole_a || ' vs ' || pole_b) as contrast,
           cast(sum(n_failed) as bigint) as n_failed,
           cast(sum(n_error) as bigint) as n_error,
           cast(sum(n_calls) as bigint) as n_calls,
           any_value(design_note(n_texts, n_failed, n_calls, 'text', ['wilcoxon', 'bootstrap']))
               filter (where prompt_level = 'plain') as note_p,
           any_value(design_note(n_texts, n_failed, n_calls, 'text', ['wilcoxon', 'bootstrap']))
               filter (where prompt_level = 'style_attention') as note_s,
           any_value(design_note(n_texts, n_failed, n_calls, 'text', ['wilcoxon', 'bootstrap']))
               filter (where prompt_level = 'fact_first') as note_f,
           any_value(n_texts) filter (where prompt_level = 'plain') as n_p,
           any_value(n_texts) filter (where prompt_level = 'style_attention') as n_s,
           any_value(n_texts) filter (where prompt_level = 'fact_first') as n_f,
           any_value(gap) filter (where prompt_level = 'plain') as g_p,
           any_value(gap_lo) filter (where prompt_level = 'plain') as lo_p,
           any_value(gap_hi) filter (where prompt_level = 'plain') as hi_p,
           any_value(wilcoxon_p_holm) filter (where prompt_level = 'plain') as holm_p,
           any_value(wilcoxon_p_bh) filter (where prompt_level = 'plain') as bh_p,
           any_value(gap) filter (where prompt_level = 'style_attention') as g_s,
           any_value(gap_lo) filter (where prompt_level = 'style_attention') as lo_s,
           any_value(gap_hi) filter (where prompt_level = 'style_attention') as hi_s,
           any_value(wilcoxon_p_holm) filter (where prompt_level = 'style_attention') as holm_s,
           any_value(wilcoxon_p_bh) filter (where prompt_level = 'style_attention') as bh_s,
           any_value(gap) filter (where prompt_level = 'fact_first') as g_f,
           any_value(gap_lo) filter (where prompt_level = 'fact_first') as lo_f,
           any_value(gap_hi) filter (where prompt_level = 'fact_first') as hi_f,
           any_value(wilcoxon_p) filter (where prompt_level = 'fact_first') as p_f
    from stg_tone_gaps
    where prompt_level in ('plain', 'style_attention', 'fact_first')
    group by study, judge, rewriter, axis
)
select study,
       judge,
       rewriter,
       axis,
       contrast,
       n_p as n_plain,
       n_s as n_style_attention,
       n_f as n_fact_first,
       n_failed,
       round(n_error / nullif(n_calls, 0), 3) as error_rate,
       round(g_p, 3) as gap_plain,
       round(lo_p, 3) as plain_lo,
       round(hi_p, 3) as plain_hi,
       round(g_s, 3) as gap_style_attention,
       round(lo_s, 3) as style_attention_lo,
       round(hi_s, 3) as style_attention_hi,
       round(g_f, 3) as gap_fact_first,
       round(lo_f, 3) as fact_first_lo,
       round(hi_f, 3) as fact_first_hi,
       case when lo_s is null or hi_s is null then null
            when above(lo_s, 0) or below(hi_s, 0) then 'yes' else 'no' end as control_shows_gap,
       case when lo_p is null or hi_p is null then null
            when not (above(lo_p, 0) or below(hi_p, 0)) then 'n/a'
            when lo_f is null or hi_f is null then null
            when above(lo_f, 0) or below(hi_f, 0) then 'no' else 'yes' end as defence_removes_gap,
       case when (above(lo_p, 0) or below(hi_p, 0)) and g_p <> 0 then round(100 * g_f / g_p, 1) end
           as fact_first_left_pct,
       sig_label(holm_s) as control_shows_gap_holm,
       sig_label(bh_s) as control_shows_gap_bh,
       case when holm_p is null then null
            when not below(holm_p, 0.05) then 'n/a'
            when p_f is null then null
            when below(p_f, 0.05) then 'no' else 'yes' end as defence_removes_gap_holm,
       case when bh_p is null then null
            when not below(bh_p, 0.05) then 'n/a'
            when p_f is null then null
            when below(p_f, 0.05) then 'no' else 'yes' end as defence_removes_gap_bh,
       join_notes('plain: ' || note_p,
                  join_notes('style_attention: ' || note_s, 'fact_first: ' || note_f)) as note
from wide
order by study, judge, rewriter = 'lexical' desc, rewriter,
         sort_pos('axis', axis), axis;
