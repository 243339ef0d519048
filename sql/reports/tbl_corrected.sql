-- Judge-corrected means per design: the judge alone, corrected by a few human labels, labels alone.
-- The human-scale mean is on 1–7 in a rating study; in an accuracy study it is the share of
-- answers truly correct. The corrections: PPI (both) and Rogan–Gladen (verdicts).
-- Only studies that declare a labelled subset in [study.analysis] have rows: human_labels (a
-- file of item_id, label) or label_share (a seeded share of the benchmark's own labels, used as
-- if only those were known); label_source says which ("file" or "share").
-- n_items: items the design scored (a rating, or a resolved verdict); n_labelled: of them, with
-- a human label. Every number below is over those items.
-- judge_mean / judge_lo / judge_hi: the mean judge score (1–7), or the judge's TRUE-rate, with
-- the naive 95% CI (mean ± 1.96·sd/√n): it ignores the judge's bias, so it can sit far from
-- the humans however narrow it is.
-- ppi_mean / ppi_lo / ppi_hi: prediction-powered inference (Angelopoulos et al. 2023): the
-- judge's mean on the unlabelled items plus its mean error against the humans on the labelled
-- ones, with its 95% CI; power-tuned as ppi_py.ppi_mean_ci by default (PPI++); ppi_lambda: the
-- weight the judge got (1: plain PPI; 0: the labels alone, the judge told nothing).
-- rg_rate / rg_lo / rg_hi (accuracy only): the Rogan–Gladen TRUE-rate, (judge rate +
-- specificity − 1) / (sensitivity + specificity − 1), clipped to [0, 1], with a percentile-
-- bootstrap 95% CI (the labelled items and all items resampled apart); sensitivity: of the
-- labelled truly correct answers, the share the judge called TRUE; specificity: of the truly
-- wrong ones, the share it called FALSE. Null when sensitivity + specificity ≤ 1.
-- human_mean / human_lo / human_hi: the labels alone, mean and 95% CI over the n_labelled items.
-- width_ratio: the human-only CI's width ÷ the PPI CI's width (above 1: the judge narrows it).
-- effective_labels: n_labelled · width_ratio², the human labels a human-only CI as narrow as
-- the PPI one would need; labels_saved = effective_labels − n_labelled, what the judge's
-- scores are worth in human labels.
-- human_all (label_share only): the mean over every scored item's own human label, the answer
-- key the estimates aim at: ppi_lo ≤ human_all ≤ ppi_hi should hold about 95% of the time.
-- judge_sd / resid_sd / human_sd: the SD of the judge's scores, of human − judge on the labelled
-- items and of the labels: what `judgelab power --label-hw` plans the number of labels from.
-- readout (last, appended): how a call became the judge's value: "answer" (the parsed answer;
-- every accuracy design), or "expected" (a rating study's probability-weighted score, when it
-- lists readouts = ["answer", "expected"]: each readout is a design corrected on its own).
-- reasoning_effort: the reasoning effort the judge was asked for ("default": none sent, the
-- provider's own; "n/a": the provider has no such control).
create or replace view tbl_corrected as
select study, kind, judge, prompt_level, scale, reasoning_effort, label_source,
       n_items, n_labelled,
       round(judge_mean, 3) as judge_mean, round(judge_lo, 3) as judge_lo,
       round(judge_hi, 3) as judge_hi,
       round(ppi_mean, 3) as ppi_mean, round(ppi_lo, 3) as ppi_lo, round(ppi_hi, 3) as ppi_hi,
       round(ppi_lambda, 3) as ppi_lambda,
       round(rg_rate, 3) as rg_rate, round(rg_lo, 3) as rg_lo, round(rg_hi, 3) as rg_hi,
       round(sensitivity, 3) as sensitivity, round(specificity, 3) as specificity,
       round(human_mean, 3) as human_mean, round(human_lo, 3) as human_lo,
       round(human_hi, 3) as human_hi,
       round(width_ratio, 2) as width_ratio,
       round(effective_labels, 0) as effective_labels,
       round(effective_labels - n_labelled, 0) as labels_saved,
       round(human_all, 3) as human_all,
       round(judge_sd, 3) as judge_sd, round(resid_sd, 3) as resid_sd,
       round(human_sd, 3) as human_sd,
       readout
from stg_corrected
order by study, kind desc, judge,
         sort_pos('prompt_level', prompt_level), prompt_level,
         sort_pos('scale', scale), scale,
         sort_pos('reasoning_effort', reasoning_effort), reasoning_effort, readout;
