"""Rating studies in the report: designs against human ratings, and what averaging designs buys.
What each part of the report shows for this type; the shared code (tasks/report/build.py,
summary.py, page.py, drill.py) finds it through the type's record (tasks/study_types.py)."""

from __future__ import annotations

import polars as pl

from tasks.rating import figures
from tasks.rating.headline import headline as study_headline
from tasks.report import figures as report_figures
from tasks.report.drill import DrillSpec
from tasks.report.panel import Headline, Panel

TITLE = "Rating studies"
INTRO = (
    "Designs (judge × prompt level × scale) against human ratings, and what averaging designs buys."
)
# the header's reading note when a study of this type is in the report
SCALE_NOTE = (
    "Bias and MAE are on the common 1–7 scale; a rating design is judge × prompt level × scale."
)
# the view with the run's main numbers (the summary artifact) and the columns read first
MAIN_NUMBERS = (
    "tbl_rating_performance",
    ["study", "judge", "prompt_level", "scale", "n_items", "bias", "mae", "kripp_alpha"],
)
# the figures and tables of this type's section, in order
PANELS: list[Panel] = [
    Panel(
        "tbl_rating_performance",
        "Bias and MAE by scale, with 95% CIs (Figure 3)",
        "Each point is one design's bias (left; 0 = no systematic over- or under-rating) or "
        "MAE (right; the dashed line is one human rater against the others) on the common "
        "1–7 scale, with its bootstrap 95% CI; a bias CI that misses 0 is a systematic shift.",
        figures.rating_performance,
        "no design has both a bias and an MAE",
    ),
    Panel(
        "tbl_judge_ranking",
        "Judges ranked by agreement with humans in each prompt × scale cell (Figure 4)",
        "Read down a column: #1 is the judge with the highest Krippendorff's α against the "
        "human ratings in that prompt level × scale cell, and the colour is α itself.",
        figures.judge_ranking,
        "no design has an α",
        min_judges=2,
    ),
    Panel(
        "tbl_ensembles",
        "Ensemble bias reduction by strategy (Figure 5)",
        "Bars show how much averaging three LLM judge designs cuts |bias| and MAE against "
        "the mean of its members' own |bias| and MAE (a strategy needs three judges, scales "
        "or prompt levels to vary, and says so when the study has fewer); baselines such as "
        "VADER are members only in the hatched '+ baselines' bars that "
        "ensemble_baselines = true adds.",
        figures.ensembles,
        "no strategy has an evaluated ensemble of three (too few judges, scales or prompt "
        "levels to vary)",
    ),
    Panel(
        "tbl_ensemble_size",
        "Ensemble |bias| and MAE by ensemble size (Figure 6)",
        "Each line follows one strategy as ensembles of different LLM judges grow from 1 "
        "(the single designs' mean |bias| and MAE) to 5 members, so the step from 1 to 2 is "
        "what a second judge buys; sizes the judges cannot fill have no point, and a dashed "
        "'+ baselines' line (only with ensemble_baselines = true) lets baselines join.",
        figures.ensemble_size,
        "no ensemble size could be filled (n_possible 0)",
        min_judges=2,
    ),
    Panel(
        "tbl_corrected",
        "Judge-corrected estimates from a few human labels",
        "Per design, the human mean on 1–7 three ways with 95% CIs: the judge alone (narrow "
        "but off by its bias), the judge corrected by the labelled items (prediction-powered "
        "inference) and those labels alone, with every item's own label dashed under "
        "label_share; a PPI interval narrower than the labels' one is labels saved.",
        report_figures.corrected,
        "no design has a corrected estimate (too few labelled items)",
    ),
    Panel(
        "tbl_design_impact_single",
        "Changing one design choice (Table 11)",
        "Per choice, the pairs of designs differing only in it: the share whose ratings "
        "differ significantly (sig_pct) or by more than 0.2 (meaningful_pct), and the mean "
        "and largest absolute difference on 1–7.",
    ),
    Panel(
        "tbl_design_impact_all_pairs",
        "Changing several design choices at once (Table 12)",
        "The same over all pairs of designs, by how many of judge, prompt level and scale "
        "differ (n_differ): the shares and differences usually grow with n_differ.",
    ),
    Panel(
        "tbl_variance_components",
        "Where the judge-score variance comes from",
        "Each bar is one source's share of the variance of the judges' 1–7 scores (eta², "
        "sequential sums of squares, df in brackets): a large item share means the judges "
        "follow the texts, a large judge, prompt or scale share means the design moves the "
        "score.",
        report_figures.variance_components,
        "no component has a share",
    ),
    Panel(
        "tbl_d_study",
        "How many judges, prompts and scales to average over (D-study)",
        "The G-study of the judges' 1–7 scores (tbl_variance_components, method random_ems: "
        "item × judge × prompt level × scale on the largest balanced subset) projected to a "
        "mean over n judges, n prompt levels and n scales: Eρ² (solid) says how reliably that "
        "mean ranks the items and Φ (dashed) how reliably it pins their absolute score, that is, "
        "what the paper's advice to average over two to three models and designs buys.",
        report_figures.d_study,
        "no G coefficient: the items do not vary",
    ),
    Panel(
        "tbl_threshold_shares",
        "Share of designs that differ from humans (Table 7)",
        "Per prompt level, model and overall, the percent of designs whose ratings differ "
        "significantly from the humans' (raw, Holm, BH) or whose |bias| or MAE pass the "
        "paper's cuts, out of n_designs.",
    ),
]
# the calls behind each row of the main table, for the drill-down
DRILL_SQL = """
select s.study, s.task, s.judge, s.prompt_level, s.scale, s.item_id, s."repeat", s.status,
       s.score, round(s.score_1to7, 3) as judge_1to7, round(s.human_1to7, 3) as human_1to7,
       coalesce(j.raw, j.error) as raw, s.readout
from stg_scores s left join stg_judgments j using (key)
where list_contains(?, s.study)
"""
DRILL = DrillSpec(
    "tbl_rating_performance",
    ("study", "judge", "prompt_level", "scale", "readout"),
    ("repeat", "human_1to7", "score", "judge_1to7", "status", "raw"),
    (pl.col("judge_1to7") - pl.col("human_1to7")).abs(),
)


def console(settings: object, studies: list[str], table: pl.DataFrame) -> list:
    """What `judgelab run` prints of the main table: CIs as [lo, hi], no long notes."""

    def ci(col: str) -> pl.Expr:
        return pl.format("{} [{}, {}]", pl.col(col), pl.col(f"{col}_lo"), pl.col(f"{col}_hi"))

    return [
        table.select(
            "study",
            "judge",
            pl.col("prompt_level").alias("prompt"),
            "scale",
            pl.col("n_items").alias("n"),
            # every failed call, as in n_failed: unanswered (error_rate) and unparseable
            (pl.col("parse_fail_pct") + 100 * pl.col("error_rate")).round(1).alias("fail%"),
            ci("bias").alias("bias [95% CI]"),
            pl.col("mae"),
            "sig",
            "effect",
            pl.format("{} [{}, {}]", "kripp_alpha", "alpha_lo", "alpha_hi").alias("α [95% CI]"),
            pl.col("human_mae").alias("human mae"),
            pl.col("human_alpha").alias("human α"),
            "readout",
        )
    ]


def headlines(settings: object, studies: list[str]) -> dict[str, Headline]:
    """Each study's headline (tasks/rating/headline.py) from its report views."""
    from tasks import warehouse

    def rows(view: str) -> pl.DataFrame:
        sql = f"select * from {view} where list_contains(?, study)"
        return warehouse.query(settings, sql, [studies])

    performance, variance = rows("tbl_rating_performance"), rows("tbl_variance_components")
    variance = variance.filter(pl.col("method") == "type1_anova")  # the headline's eta²
    said = {
        s: study_headline(
            performance.filter(pl.col("study") == s), variance.filter(pl.col("study") == s)
        )
        for s in studies
    }
    return {s: h for s, h in said.items() if h.full}
