-- Does a design choice change correctness? Chi-square per choice, Cochran's Q over all designs.
-- Accuracy studies: a verdict is right when it matches the truth; pairwise studies with a human
-- preference (e.g. LLMBar): a call (pair × order × repeat) is right when its winner is the
-- preferred answer, a tie is wrong, a failed call is no item (tasks/pairwise/verdict_tests.py).
-- Chi-square of correctness × choice over design × item rows (treated as independent: a screen);
-- Cochran's Q over all designs on the items all resolved. p_holm / p_bh: p after Holm and
-- Benjamini–Hochberg (FDR 5%) over the family of the study's tests in this table; sig /
-- sig_holm / sig_bh: that p < 0.05.
-- equivalent (choice rows): the TOST verdict of the choice's single-choice design pairs at
-- ±5 points by default ([study.analysis] equivalence_margin): "yes" every pair equivalent, "no"
-- one shown beyond the margin, else "inconclusive" (fct_verdict_choice_tests).
-- test: chi2_independence (correctness × the levels of one choice) or cochran_q (correctness
-- across every design). choice: the choice a chi-square row tests, model (the judge),
-- prompt_level or reasoning_effort ("n/a" left out), or design on the Cochran row. dof: the
-- test's degrees of freedom, levels − 1 (0 when every row is right, or every row wrong).
-- p: the test's p value (null when the statistic is undefined). cramers_v: Cramér's V, the
-- chi-square's effect size, 0 (no association) to 1 (chi-square rows only).
create or replace view tbl_verdict_tests as
select v.study,
       v.test,
       v.choice,
       v.n_levels,
       v.n_obs,
       round(v.statistic, 3) as statistic,
       v.dof,
       v.p,
       round(v.cramers_v, 3) as cramers_v,
       case when v.sig then 'yes' when v.sig is null then null else 'no' end as sig,
       v.p_holm,
       sig_label(v.p_holm) as sig_holm,
       v.p_bh,
       sig_label(v.p_bh) as sig_bh,
       t.equivalent
from stg_verdict_tests v
left join fct_verdict_choice_tests t on t.study = v.study and t.choice = v.choice
order by v.study, sort_pos('test', v.test),
         sort_pos('choice', v.choice);
