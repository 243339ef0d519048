-- Does a judge score the same text higher in one wording than in another, facts frozen, and by
-- more than asking it again moves a score? Per axis (contrast = pole A vs pole B): confidence
-- (high vs low: confident vs hedged), fluency (native vs non-native), verbosity (padded vs the
-- original) and formatting (bullets vs the original prose). gap = mean over texts of
-- mean score(A) − mean score(B), 1–10; gap_lo / gap_hi: the gap's 95% bootstrap CI over texts;
-- wilcoxon_p: the paired Wilcoxon test's p. noise = the SD one text's gap has from repeat noise
-- alone (pooled repeat SD × sqrt(2 / repeats)); gap_to_noise: gap ÷ noise; distinguishable:
-- the CI excludes 0 and |gap| > noise (gap_to_noise beyond ±1; a CI end on 0 or a |gap| on the
-- noise within 1e-9 is not beyond its cut). win_ratio = texts
-- A > B per text B > A (ties left out; null when B never wins). flip_a_pass_pct /
-- flip_b_pass_pct: the verdict (version mean ≥ threshold) passes for A and fails for B, and
-- the reverse, in percent of texts; a_vs_orig /
-- b_vs_orig: each version's gap to the unrewritten original.
-- Multiple comparisons ("If the differences look random, the evaluator is more robust": among
-- many gaps some look real by chance): the family is every gap test of the study, i.e. all its
-- rows here (judges × prompt levels × rewriters × axes). wilcoxon_p_holm / wilcoxon_p_bh: the
-- Wilcoxon p adjusted over it (Holm: family-wise error; Benjamini–Hochberg: false discovery
-- rate); sig / sig_holm / sig_bh: that p < 0.05 (a p on 0.05 within 1e-9 is not below it).
-- n_failed: calls on the two versions whose stored result is a provider error, an unparseable
-- answer or an out-of-range one (tasks.notes.FAILED; a call not made yet is not failed);
-- error_rate: provider errors ÷ those planned calls (a judge whose every call failed: 1.0).
-- note (macro design_note): no text scored on both versions and why, or too few texts for the
-- Wilcoxon test (< 6: p < 0.05 is out of reach) or for the bootstrap CI (< 10).
-- n_items: the same count as n_texts (a text is this study's item), under the name every
-- per-design view shares.
-- rewriter: who wrote the versions: lexical (judgelab's rule-based rewriter) or the LLM
-- rewriter, by its [rewriter] name. axis: the style axis the versions move along
-- (prompts/tone/axes/<axis>.toml: confidence, fluency, verbosity, formatting).
-- n_a_wins / n_b_wins: texts whose version A / B has the higher mean score; n_ties: texts whose
-- two means are equal (within 1e-9). ok_a_pct / ok_b_pct: ok calls on the A / B versions,
-- percent of their planned calls.
create or replace view tbl_tone_gaps as
select study,
       judge,
       prompt_level,
       rewriter,
       axis,
       pole_a || ' vs ' || pole_b as contrast,
       n_texts,
       n_texts as n_items,
       n_failed,
       round(n_error / nullif(n_calls, 0), 3) as error_rate,
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
       round(noise_sd, 3) as noise_sd,
       round(noise_yardstick, 3) as noise,
       round(gap_to_noise, 2) as gap_to_noise,
       case when distinguishable then 'yes' when distinguishable is null then null else 'no' end
           as distinguishable,
       n_a_wins,
       n_b_wins,
       n_ties,
       round(win_ratio, 2) as win_ratio,
       threshold,
       round(100 * share_flip_a_pass, 1) as flip_a_pass_pct,
       round(100 * share_flip_b_pass, 1) as flip_b_pass_pct,
       round(gap_a_orig, 3) as a_vs_orig,
       round(gap_b_orig, 3) as b_vs_orig,
       round(100 * ok_rate_a, 1) as ok_a_pct,
       round(100 * ok_rate_b, 1) as ok_b_pct,
       design_note(n_texts, n_failed, n_calls, 'text', ['wilcoxon', 'bootstrap']) as note
from stg_tone_gaps
order by study, judge,
         sort_pos('prompt_level', prompt_level),
         prompt_level, rewriter = 'lexical' desc, rewriter,
         sort_pos('axis', axis), axis;
