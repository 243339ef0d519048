"""The tone stress test's stages as Prefect tasks: read tables, call pure transforms, write."""

from __future__ import annotations

import polars as pl
from prefect import task

from judgelab.settings import Settings
from judgelab.study import Study
from schemas.rewrite_checks import RewriteChecks
from schemas.validate import validate
from tasks import benchmarks, stages, warehouse
from tasks.benchmarks.tonetexts import load_text_file
from tasks.judging import prompts, store
from tasks.judging.cache import call_counts
from tasks.judging.scales import load_scales
from tasks.plan import sample_items
from tasks.tone import analysis, checks, lexical, plan, scores, similarity, versions
from tasks.tone.axes import load_axis


def rewrite_part(study: Study) -> str:
    return f"{study.name}.rewrite"


def eval_part(study: Study) -> str:
    return f"{study.name}.eval"


def _axes(study: Study) -> dict:
    return {name: load_axis(name) for name in study.tone.axes}


@task(name="load-texts")
def load_texts(study: Study, settings: Settings) -> int:
    """UKPConvArg1 (checksum-verified) or the user's file → a sample stratified by domain."""
    if study.texts is not None:
        t = study.texts
        texts = load_text_file(t.path, t.id_column, t.text_column, t.score_column, t.domain_column)
    else:
        texts = benchmarks.builtin(study, settings)
    texts = sample_items(texts, study.sample_size, study.seed, id_column="text_id")
    warehouse.write_table(settings, texts, "tone_texts", study.name)
    return texts.height


@task(name="plan-rewrites")
def plan_rewrites(study: Study, settings: Settings) -> tuple[dict[str, dict[str, int]], list[str]]:
    """The rewrite calls: counts per judge and the endpoint notes (stages.endpoint_notes)."""
    texts = warehouse.read_table(settings, "tone_texts", study.name)
    table = plan.rewrite_plan(study, texts, _axes(study), load_scales())
    warehouse.write_table(settings, table, "plan", rewrite_part(study))
    store.ensure_store(settings.store_dir)
    counts = call_counts(table, store.done_keys(settings.store_dir))
    return counts, stages.endpoint_notes(study, settings, table)


def make_versions(
    study: Study, texts: pl.DataFrame, rewrite_plan: pl.DataFrame, judgments: pl.DataFrame
) -> pl.DataFrame:
    """Originals, rule-based rewrites (rules: known before any call) and the LLM rewrites as the
    stored `judgments` hold them (one not made yet keeps status `missing`, no text)."""
    axes = _axes(study)
    parts = [versions.originals(study.name, texts)]
    if study.tone.lexical:
        parts += [
            versions.lexical(study.name, lexical.lexical_versions(texts, axis, study.seed))
            for axis in axes.values()
        ]
    parts.append(versions.llm(study.name, rewrite_plan, judgments))
    if study.rewriter is not None:
        parts.append(versions.as_written(study.name, texts, axes, study.rewriter.name))
    return versions.all_versions(*parts)


def check_versions(study: Study, texts: pl.DataFrame, table: pl.DataFrame) -> pl.DataFrame:
    """Every rewrite of `table` checked (facts, length, direction, diversity, meaning) →
    `rewrite_checks`; a failed or missing rewrite call is a failed `call` check."""
    axes = _axes(study)
    rewrites = table.filter(pl.col("pole") != versions.ORIGINAL)
    done = rewrites.filter(pl.col("status") == "ok")
    found = checks.check_versions(done, texts, axes, study.tone.length_tolerance)
    originals = dict(texts.select("text_id", "text").iter_rows())
    poles = [axes[a].pole(p) for a, p in done.select("axis", "pole").iter_rows()]
    cos = similarity.similarity(
        [checks.comparable(originals[t], p) for t, p in zip(done["text_id"], poles, strict=True)],
        [checks.comparable(t, p) for t, p in zip(done["text"], poles, strict=True)],
        study.tone.similarity_model,
    )
    key = ["version_id", "text_id", "axis", "pole", "rewriter"]
    meaning = (
        done.select(key)
        .with_columns(
            pl.lit("similarity").alias("check"),
            pl.Series("value", cos, dtype=pl.Float64),
        )
        .with_columns(
            (pl.col("value") >= study.tone.similarity_min).alias("passed"),
            pl.format("cosine to the original ({})", pl.lit(study.tone.similarity_model)).alias(
                "detail"
            ),
        )
    )
    failed_calls = rewrites.filter(pl.col("status") != "ok").select(
        *key,
        pl.lit("call").alias("check"),
        pl.lit(False).alias("passed"),
        pl.lit(None, pl.Float64).alias("value"),
        pl.format("rewrite call {}", "status").alias("detail"),
    )
    columns = list(RewriteChecks.to_schema().columns)
    return validate(
        pl.concat([f.select(columns) for f in (found, meaning, failed_calls)]), RewriteChecks
    )


def passed_versions(table: pl.DataFrame, found: pl.DataFrame) -> pl.DataFrame:
    """The versions evaluated: originals and the rewrites that passed every check."""
    failed = found.group_by("version_id").agg(pl.col("passed").all()).filter(~pl.col("passed"))
    return table.filter(pl.col("status") == "ok").join(failed, on="version_id", how="anti")


@task(name="versions-and-checks")
def versions_and_checks(study: Study, settings: Settings) -> dict[str, int]:
    """Originals, rule-based and LLM rewrites → `tone_versions`; every rewrite checked (facts,
    length, direction, diversity, meaning) → `rewrite_checks`. Failed calls count as failed."""
    texts = warehouse.read_table(settings, "tone_texts", study.name)
    table = make_versions(
        study,
        texts,
        warehouse.read_table(settings, "plan", rewrite_part(study)),
        store.latest_rows(settings.store_dir, ["key", "status", "raw"]),
    )
    warehouse.write_table(settings, table, "tone_versions", study.name)
    result = check_versions(study, texts, table)
    warehouse.write_table(settings, result, "rewrite_checks", study.name)
    passed = result.group_by("version_id").agg(pl.col("passed").all())
    rewrites = table.filter(pl.col("pole") != versions.ORIGINAL)
    return {"versions": rewrites.height, "passed": int(passed["passed"].sum())}


@task(name="plan-evaluations")
def plan_evaluations(
    study: Study, settings: Settings
) -> tuple[dict[str, dict[str, int]], list[str]]:
    """Originals and the rewrites that passed every check, each in its own evaluation call:
    counts per judge and the endpoint notes."""
    scored = passed_versions(
        warehouse.read_table(settings, "tone_versions", study.name),
        warehouse.read_table(settings, "rewrite_checks", study.name),
    )
    evals = plan.eval_plan(study, scored, load_scales())
    warehouse.write_table(settings, evals, "plan", eval_part(study))
    counts = call_counts(evals, store.done_keys(settings.store_dir))
    return counts, stages.endpoint_notes(study, settings, evals)


def evaluations_now(
    study: Study, settings: Settings
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """For `judgelab plan`, nothing written: the evaluation plan the run would make of the
    versions that exist now — originals, rule-based rewrites, LLM rewrites already stored —
    checked as the run checks them; every version; the versions evaluated. An LLM rewrite
    not made yet has no text to evaluate: its calls are planned once it passes."""
    texts = warehouse.read_table(settings, "tone_texts", study.name)
    table = make_versions(
        study,
        texts,
        warehouse.read_table(settings, "plan", rewrite_part(study)),
        store.latest_rows(settings.store_dir, ["key", "status", "raw"]),
    )
    scored = passed_versions(table, check_versions(study, texts, table))
    return plan.eval_plan(study, scored, load_scales()), table, scored


def threshold(study: Study) -> float:
    """Accept at overall ≥ this: the study's setting, else the genre's (task.toml)."""
    return study.tone.threshold or float(prompts.task_config(study.task)["threshold"])


@task(name="tone-analysis")
def tone_analysis(study: Study, settings: Settings) -> int:
    """Evaluation answers → `tone_scores`, then gaps, noise, flips, criteria, human relation."""
    evals = warehouse.read_table(settings, "plan", eval_part(study))
    table = scores.tone_score_rows(
        evals,
        store.latest_rows(settings.store_dir, ["key", "status", "score", "raw"]),
        warehouse.read_table(settings, "tone_versions", study.name),
        warehouse.read_table(settings, "tone_texts", study.name),
        load_scales(),
    )
    cut, a = threshold(study), study.analysis
    poles = {name: tuple(axis.poles) for name, axis in _axes(study).items()}  # gap = A − B
    tables = {
        "tone_scores": table,
        "tone_version_scores": analysis.version_scores(table, threshold=cut),
        "tone_gaps": analysis.tone_gaps(
            table, threshold=cut, n_boot=a.bootstrap, seed=a.seed, poles=poles
        ),
        "tone_threshold_sweep": analysis.threshold_sweep(table, poles=poles),
        "tone_criterion_gaps": analysis.criterion_gaps(
            table, n_boot=a.bootstrap, seed=a.seed, poles=poles
        ),
        "tone_human_relation": analysis.human_relation(table, poles=poles),
    }
    for name, frame in tables.items():
        warehouse.write_table(settings, frame, name, study.name)
    return table.height


AFTER_JUDGING = (tone_analysis,)  # score gaps, win ratios, verdict flips, with noise
