-- Which rubric criteria carry the tone gap? Per criterion (1–4), the mean gap A − B over texts
-- scored on both versions, with its 95% bootstrap CI and the paired Wilcoxon p.
-- Multiple comparisons ("If the differences look random, the evaluator is more robust": of
-- many criterion gaps some look real by chance): the family is every criterion test of the
-- study, i.e. all its rows here (criteria × judges × prompt levels × rewriters × axes);
-- wilcoxon_p_holm / wilcoxon_p_bh: the p adjusted over it by Holm / Benjamini–Hochberg;
-- sig / sig_holm / sig_bh: that p < 0.05 (a p on 0.05 within 1e-9 is not below it).
-- note (macro design_note): no text with the criterion scored on both versions, or too few
-- texts for the Wilcoxon test (< 6: p < 0.05 is out of reach) or for the bootstrap CI (< 10).
-- Criteria come from parsed answers only: the calls that failed, and a comparison with no
-- scored text at all, are in tbl_tone_gaps.
-- n_items: the same count as n_texts (a text is this study's item), under the name every
-- per-design view shares.
-- rewriter: who wrote the versions: lexical (judgelab's rule-based rewriter) or the LLM
-- rewriter, by its [rewriter] name. axis: the style axis the versions move along
-- (prompts/tone/axes/<axis>.toml: confidence, fluency, verbosity, formatting).
-- criterion: a criterion of the rubric (prompts/scales.toml, e.g. claim, support, reasoning,
-- relevance), scored 1–4. mean_a / mean_b: the mean over the texts of the criterion's score of
-- the A / B version (each version: its ok repeats averaged). gap_lo / gap_hi: the gap's 95%
-- percentile-bootstrap CI over texts (null when not bootstrapped or under 2 texts).
-- wilcoxon_p: the paired Wilcoxon signed-rank test's two-sided p, A against B over the texts.
-- rank_biserial: the Wilcoxon test's effect size, the matched-pairs rank-biserial r (positive: A
-- scored higher).
create or replace view tbl_tone_criteria as
select study,
       judge,
       prompt_level,
       rewriter,
       axis,
       criterion,
       n_texts,
       n_texts as n_items,
       round(mean_a, 3) as mean_a,
       round(mean_b, 3) as mean_b,
       round(gap, 3) as gap,
       round(gap_lo, 3) as gap_lo,
       round(gap_hi, 3) as gap_hi,
       wilcoxon_p,
       wilcoxon_p_holm,
       wilcoxon_p_bh,
       sig_label(wilcoxon_p) as sig,
       sig_label(wilcoxon_p_holm) as sig_holm,
       sig_label(wilcoxon_p_bh) as sig_bh,
       round(rank_biserial, 3) as rank_biserial,
       design_note(n_texts, null, null, 'text', ['wilcoxon', 'bootstrap']) as note
from stg_tone_criterion_gaps
order by study, judge,
         sort_pos('prompt_level', prompt_level),
         prompt_level, rewriter = 'lexical' desc, rewriter,
         sort_pos('axis', axis), axis, criterion;
