"""Per-design notes and failed calls in the report views: a design with too few items says its
test cannot reach p < 0.05 or its CI is not worth reading; a judge whose every call failed keeps
its row (error_rate 1.0, n_items 0, "no scored item: every call failed") and is counted where
pairs, ensembles and levels leave it out; VADER's caveat about its own texts appears on the
VADER benchmark only; the report shows each note beside the figure it qualifies."""

from __future__ import annotations

from datetime import UTC, datetime
from html import escape

import duckdb
import numpy as np
import polars as pl
import pytest
import scipy.stats

from judgelab.settings import Settings
from schemas.pairwise_verdicts import PairwiseVerdicts
from schemas.scores import Scores
from schemas.tone_scores import ToneScores
from schemas.validate import validate
from tasks import notes, warehouse
from tasks.accuracy.consensus import consensus
from tasks.accuracy.metrics import accuracy_metrics
from tasks.accuracy.verdict_impact import verdict_levels
from tasks.pairwise.analysis import agreement_table, position_table
from tasks.rating.agreement import design_pairs
from tasks.rating.baselines import baseline_table
from tasks.rating.ensembles import ensembles
from tasks.rating.item_scores import item_scores
from tasks.rating.metrics import rating_metrics
from tasks.report.build import write_report
from tasks.runs import run_rows
from tasks.stats import signed_rank

AT = datetime(2026, 12, 3, tzinfo=UTC)
TINY = (
    "Wilcoxon over 3 items: smallest possible p 0.25, p < 0.05 needs ≥ 6; "
    "bootstrap CI over 3 items: too few to trust, needs ≥ 10"
)
DEAD = "no scored item: every call failed"
NEEDS_6 = "p < 0.05 needs ≥ 6"


# ── the rule ───────────────────────────────────────────────────────────────────────────────


def _macros() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute(notes.macro_sql())
    return con


def _one(con: duckdb.DuckDBPyConnection, sql: str) -> object:
    return con.sql(f"select {sql}").fetchall()[0][0]


@pytest.mark.parametrize("n", range(2, 9))
def test_min_n_is_where_the_exact_tests_first_reach_p_below_005(n: int) -> None:
    """The note's smallest p is what signed_rank and the sign test give when every unit points
    one way, and MIN_N is the first n where that p is below 0.05."""
    smallest = float(signed_rank(np.arange(1.0, n + 1))["p"][0])
    assert smallest == pytest.approx(2.0 ** (1 - n))
    assert scipy.stats.binomtest(n, n, 0.5).pvalue == pytest.approx(smallest)
    assert (smallest < 0.05) == (n >= notes.MIN_N["wilcoxon"]) == (n >= notes.MIN_N["sign"])


@pytest.mark.parametrize(
    ("n", "unit", "test", "note"),
    [
        (3, "item", "wilcoxon", "Wilcoxon over 3 items: smallest possible p 0.25, " + NEEDS_6),
        (5, "pair", "sign", "sign test over 5 pairs: smallest possible p 0.0625, " + NEEDS_6),
        (6, "item", "wilcoxon", None),
        (6, "pair", "sign", None),
        (1, "text", "bootstrap", "bootstrap CI over 1 text: too few to trust, needs ≥ 10"),
        (9, "item", "bootstrap", "bootstrap CI over 9 items: too few to trust, needs ≥ 10"),
        (10, "item", "bootstrap", None),
        (0, "item", "wilcoxon", None),  # no unit: design_note's "no scored item" says it
        (None, "item", "bootstrap", None),
    ],
)  # fmt: skip
def test_small_n_note(n: int | None, unit: str, test: str, note: str | None) -> None:
    n_sql = "null::bigint" if n is None else f"{n}::bigint"
    assert _one(_macros(), f"small_n_note({n_sql}, '{unit}', '{test}')") == note


@pytest.mark.parametrize(
    ("args", "note"),
    [
        ("0, 12, 12, 'item', ['wilcoxon']", DEAD),
        ("0, 3, 12, 'item', []", "no scored item: 3 of 12 calls failed"),
        ("0, 0, 12, 'pair', []", "no scored pair"),  # calls not made yet
        ("3, 0, 3, 'item', ['wilcoxon', 'bootstrap']", TINY),
        ("8, 1, 9, 'item', ['wilcoxon', 'bootstrap']",
         "bootstrap CI over 8 items: too few to trust, needs ≥ 10"),
        ("3, 0, 3, 'item', []", None),  # no test, no interval: nothing to say
        ("12, 0, 12, 'item', ['wilcoxon', 'bootstrap']", None),
    ],
)  # fmt: skip
def test_design_note(args: str, note: str | None) -> None:
    assert _one(_macros(), f"design_note({args})") == note


def test_a_call_not_made_yet_has_not_failed() -> None:
    got = _macros().sql(
        "select s, call_failed(s) from (values ('ok'), ('unparseable'), ('out_of_range'), "
        "('error'), ('missing')) t(s)"
    )
    assert dict(got.fetchall()) == {
        "ok": False,
        "unparseable": True,
        "out_of_range": True,
        "error": True,
        "missing": False,
    }


# ── rating: per design, pairs, ensembles, the report ───────────────────────────────────────

HUMAN = [2.0, 3.0, 3.5, 4.0, 4.5, 5.0, 5.5, 6.0, 2.5, 3.0, 4.0, 5.0]  # 12 items on 1–7
# per judge, one entry per item: judge − human (an ok score), or the call's failed status
OUTCOMES: dict[str, list[float | str]] = {
    "j-tiny": [0.2, 0.3, 0.45] + ["missing"] * 9,  # 3 items, all above the humans
    "j-dead": ["error"] * 12,  # a wrong key: every call a provider error
    "j-half": [
        *(0.1, -0.2, 0.3, -0.1, 0.2, 0.0, -0.3),  # 7 items, then 4 failed calls and 1 not made
        *("unparseable", "out_of_range", "unparseable", "error", "missing"),
    ],
    "j-full": [0.1, -0.1, 0.2, -0.2, 0.15, -0.15, 0.05, -0.05, 0.1, 0.0, -0.1, 0.2],
}


def _rating_scores() -> pl.DataFrame:
    rows = []
    for judge, outcomes in [*OUTCOMES.items(), ("vader", [0.5] * 12)]:
        kind, level, scale = (
            ("baseline", "none", "compound") if judge == "vader" else ("judge", "base", "likert7")
        )
        for i, (human, outcome) in enumerate(zip(HUMAN, outcomes, strict=True)):
            ok = not isinstance(outcome, str)
            score = min(7.0, human + outcome) if ok else None
            rows.append(
                {
                    "key": f"{judge}-{i}",
                    "study": "s",
                    "kind": kind,
                    "judge": judge,
                    "model": f"m/{judge}",
                    "task": "sentiment",
                    "prompt_level": level,
                    "prompt_version": "v1",
                    "scale": scale,
                    "item_id": f"i{i:02d}",
                    "repeat": 0,
                    "status": "ok" if ok else outcome,
                    "score": score,
                    "score_1to7": score,
                    "human_1to7": human,
                    "readout": "answer",
                }
            )
    return validate(pl.DataFrame(rows), Scores)


@pytest.fixture
def rating(settings: Settings) -> Settings:
    """A rating study "s" (a user's own file) with the designs of OUTCOMES and VADER, through
    its stages' transforms into the warehouse, views published."""
    scores = _rating_scores()
    per_item = item_scores(scores)
    tables = {
        "scores": scores,
        "item_scores": per_item,
        "rating_metrics": rating_metrics(scores, n_boot=200, seed=1, per_item=per_item),
        "design_pairs": design_pairs(per_item),
        "ensembles": ensembles(per_item),
        "baselines": baseline_table("s", "sentiment", ["vader"], "file"),
        "runs": run_rows("s", "rating", "r1", AT, AT, list(OUTCOMES), {}),
    }
    for name, frame in tables.items():
        warehouse.write_table(settings, frame, name, "s")
    warehouse.publish_views(settings)
    return settings


def _by_judge(settings: Settings, sql: str) -> dict[str, dict]:
    rows = warehouse.query(settings, sql).iter_rows(named=True)
    return {r["judge"]: r for r in rows}


def test_rating_performance_counts_failures_and_notes_small_n(rating: Settings) -> None:
    got = _by_judge(
        rating,
        "select judge, n_items, n_failed, error_rate, parse_fail_pct, bias, bias_lo, bias_hi, "
        "wilcoxon_p, note from tbl_rating_performance",
    )
    tiny = got["j-tiny"]
    # the interval looks confident (it excludes 0) while no test over 3 items could be
    # significant: the note says so; its 9 calls not made yet are not failures
    assert (tiny["n_items"], tiny["n_failed"], tiny["error_rate"]) == (3, 0, 0.0)
    assert tiny["bias_lo"] >= 0.2 and tiny["wilcoxon_p"] == pytest.approx(0.25)
    assert tiny["note"] == TINY
    dead = got["j-dead"]  # stays, and says why it has no numbers
    assert (dead["n_items"], dead["n_failed"], dead["error_rate"]) == (0, 12, 1.0)
    assert (dead["parse_fail_pct"], dead["bias"], dead["note"]) == (0.0, None, DEAD)
    half = got["j-half"]  # 2 unparseable, 1 out of range, 1 error; the missing call is not failed
    assert (half["n_items"], half["n_failed"], half["error_rate"]) == (7, 4, 0.083)
    assert half["parse_fail_pct"] == 25.0
    assert half["note"] == "bootstrap CI over 7 items: too few to trust, needs ≥ 10"
    assert (got["j-full"]["n_items"], got["j-full"]["note"]) == (12, None)


def test_vader_caveat_about_its_own_texts_only_on_its_own_benchmark(rating: Settings) -> None:
    (note,) = warehouse.query(
        rating, "select note from tbl_rating_performance where judge = 'vader'"
    )["note"]
    assert note.startswith("VADER is a lexicon-and-rules scorer") and "validated" not in note
    own = baseline_table("v", "sentiment", ["vader"], "vader")["note"][0]
    assert own.startswith("VADER's lexicon was validated on these very texts")
    assert note in own  # the caveat that holds anywhere follows it there


def test_an_unscored_design_is_counted_where_pairs_and_ensembles_leave_it_out(
    rating: Settings,
) -> None:
    pairs = warehouse.query(rating, "select judge_a, judge_b from stg_design_pairs")
    assert "j-dead" not in {*pairs["judge_a"], *pairs["judge_b"]}  # in no pair …
    single = warehouse.query(
        rating, "select kinds, choice, n_pairs, n_unscored_designs from tbl_design_impact_single"
    )
    assert single.rows() == [("judge-judge", "model", 3, 1)]  # … but counted
    for view in ("tbl_design_impact_all_pairs", "tbl_judge_agreement"):
        got = warehouse.query(rating, f"select kinds, n_unscored_designs from {view}")
        assert set(got.rows()) == {("baseline-judge", 1), ("judge-judge", 1)}, view
    for view in ("tbl_ensembles", "tbl_ensemble_size"):
        got = warehouse.query(rating, f"select distinct pool, n_unscored_designs from {view}")
        assert got.rows() == [("judges", 1)], view


def test_the_report_shows_each_note_beside_its_figure(rating: Settings) -> None:
    html = write_report(rating, ["s"], rating.data_dir / "reports" / "s.html").read_text("utf-8")
    start = html.index('<ul class="notes" data-view="tbl_rating_performance">')
    listed = html[start : html.index("</ul>", start)]
    assert f"<strong>s · j-tiny · base · likert7</strong>: {escape(TINY)}</li>" in listed
    assert f"<strong>s · j-dead · base · likert7</strong>: {escape(DEAD)}</li>" in listed
    assert "j-full" not in listed  # no note, not listed
    assert listed.index("j-tiny") < html.index("<details", start)  # not folded away
    table = html[html.index('<table data-view="tbl_rating_performance">') :]
    assert f'<td class="long">{escape(TINY)}</td>' in table[: table.index("</table>")]


# ── pairwise, accuracy, tone ───────────────────────────────────────────────────────────────


def _pairwise_calls() -> pl.DataFrame:
    """always-a answers "A" (the answer shown first) on 5 pairs: bias 50 [50, 50]; dead errs
    on every call; steady leans first on 6 pairs and second on 6."""
    rows = []
    for judge, n_pairs in (("always-a", 5), ("dead", 5), ("steady", 12)):
        for p in range(n_pairs):
            for shown in ("a", "b"):
                if judge == "dead":
                    status, position, winner = "error", None, None
                elif judge == "always-a" or p < 6:  # the first position wins
                    status, position, winner = "ok", "A", shown
                else:  # the second one does
                    status, position, winner = "ok", "B", "ab"[shown == "a"]
                rows.append(
                    ("s", judge, f"m/{judge}", "base", "n/a", f"p{p:02d}", shown, 0, status,
                     position, winner, "a")
                )  # fmt: skip
    columns = list(PairwiseVerdicts.to_schema().columns)
    return validate(pl.DataFrame(rows, schema=columns, orient="row"), PairwiseVerdicts)


def test_pairwise_views_note_few_pairs_and_keep_a_dead_judge(settings: Settings) -> None:
    calls = _pairwise_calls()
    tables = {
        "pairwise_verdicts": calls,
        "pairwise_position": position_table(calls, n_boot=200, seed=1),
        "pairwise_agreement": agreement_table(calls),
    }
    for name, frame in tables.items():
        warehouse.write_table(settings, frame, name, "s")
    warehouse.publish_views(settings)
    got = _by_judge(
        settings,
        "select judge, n_pairs, n_items, n_failed, failed_pct, error_rate, bias_pp, bias_lo_pp, "
        "bias_hi_pp, p_value, note from tbl_pairwise_position",
    )
    a = got["always-a"]
    assert (a["bias_pp"], a["bias_lo_pp"], a["bias_hi_pp"], a["p_value"]) == (50, 50, 50, 0.0625)
    assert a["note"] == (
        "bootstrap CI over 5 pairs: too few to trust, needs ≥ 10; "
        "sign test over 5 leaning pairs: smallest possible p 0.0625, p < 0.05 needs ≥ 6"
    )
    dead = got["dead"]
    assert (dead["n_pairs"], dead["n_items"], dead["n_failed"]) == (5, 0, 10)
    assert (dead["failed_pct"], dead["error_rate"]) == (100.0, 1.0)
    assert dead["note"] == "no scored pair: every call failed"
    assert (got["steady"]["n_items"], got["steady"]["note"]) == (12, None)
    agree = _by_judge(
        settings, "select judge, n_items, n_failed, error_rate, note from tbl_pairwise_agreement"
    )
    assert {j: tuple(r.values())[1:] for j, r in agree.items()} == {
        "always-a": (5, 0, 0.0, None),  # no test here: nothing to say about n
        "dead": (0, 10, 1.0, "no scored pair: every call failed"),
        "steady": (12, 0, 0.0, None),
    }


def test_accuracy_views_keep_a_dead_design_and_count_it(settings: Settings) -> None:
    reference = [True, False, True, False, True, False]
    rows = [
        ("s", judge, f"m/{judge}", "base", "n/a", f"i{k}", 0, status, verdict, ref)
        for judge in ("ja", "jb", "dead")
        for k, ref in enumerate(reference)
        for status, verdict in [("error", None) if judge == "dead" else ("ok", int(ref))]
    ]
    schema = ["study", "judge", "model", "prompt_level", "reasoning_effort", "item_id"]
    schema += ["repeat", "status", "verdict", "reference"]
    verdicts = pl.DataFrame(rows, schema=schema, orient="row")
    metrics = accuracy_metrics(verdicts, consensus(verdicts))
    for name, frame in {
        "verdicts": verdicts,
        "accuracy_metrics": metrics,
        "verdict_levels": verdict_levels(metrics),
    }.items():
        warehouse.write_table(settings, frame, name, "s")
    warehouse.publish_views(settings)
    got = _by_judge(
        settings,
        "select judge, n_items, n_scored, n_failed, error_rate, note from tbl_accuracy_by_design",
    )
    assert {j: tuple(r.values())[1:] for j, r in got.items()} == {
        "dead": (0, 0, 6, 1.0, DEAD),
        "ja": (6, 6, 0, 0.0, None),
        "jb": (6, 6, 0, 0.0, None),
    }
    impact = warehouse.query(settings, "select choice, n_unscored_designs from tbl_verdict_impact")
    assert impact.rows() == [("model", 1)]


def _tone_calls() -> pl.DataFrame:
    """few scores 3 texts (each version once, high one point above low); dead errs always."""
    rows = []
    for judge in ("few", "dead"):
        for t in range(3):
            for pole, value in (("original", 5.0), ("high", 6.0 + t / 4), ("low", 5.0)):
                dead = judge == "dead"
                rows.append(
                    {
                        "study": "s",
                        "judge": judge,
                        "model": f"m/{judge}",
                        "prompt_level": "plain",
                        "text_id": f"t{t}",
                        "axis": "confidence",
                        "pole": pole,
                        "rewriter": "none" if pole == "original" else "lexical",
                        "repeat": 0,
                        "status": "error" if dead else "ok",
                        "overall": None if dead else value,
                        "criteria": None,
                        "human_score": 3.0,
                    }
                )
    schema = {n: c.dtype.type for n, c in ToneScores.to_schema().columns.items()}
    return validate(pl.DataFrame(rows, schema=schema), ToneScores)


def test_tone_views_note_few_texts_and_keep_a_dead_judge(settings: Settings) -> None:
    from tasks.tone.analysis import tone_gaps

    warehouse.write_table(settings, tone_gaps(_tone_calls(), n_boot=200), "tone_gaps", "s")
    warehouse.publish_views(settings)
    few_note = (
        "Wilcoxon over 3 texts: smallest possible p 0.25, p < 0.05 needs ≥ 6; "
        "bootstrap CI over 3 texts: too few to trust, needs ≥ 10"
    )
    gaps = _by_judge(
        settings,
        "select judge, n_texts, n_items, n_failed, error_rate, gap_lo, note from tbl_tone_gaps",
    )
    assert all(r["n_items"] == r["n_texts"] for r in gaps.values())
    assert gaps["few"]["gap_lo"] >= 1 and gaps["few"]["note"] == few_note  # confident, 3 texts
    assert {j: (r["n_texts"], r["n_failed"], r["error_rate"]) for j, r in gaps.items()} == {
        "dead": (0, 6, 1.0),  # both versions of 3 texts; the originals are not in the gap
        "few": (3, 0, 0.0),
    }
    assert gaps["dead"]["note"] == "no scored text: every call failed"
    variant = _by_judge(
        settings, "select judge, n_plain, n_failed, error_rate, note from tbl_tone_by_variant"
    )
    assert variant["few"]["note"] == f"plain: {few_note}"
    assert tuple(variant["dead"].values())[1:] == (
        0,
        6,
        1.0,
        "plain: no scored text: every call failed",
    )


def test_failed_calls_are_plain_integers(settings: Settings) -> None:
    """n_failed is a BIGINT, not DuckDB's HUGEINT (count_if, sum): polars reads HUGEINT as a
    decimal, which the run summary's JSON artifact cannot hold."""
    warehouse.publish_views(settings)
    for view in (
        "tbl_rating_performance",
        "tbl_accuracy_by_design",
        "tbl_pairwise_position",
        "tbl_pairwise_agreement",
        "tbl_tone_gaps",
        "tbl_tone_by_variant",
    ):
        types = dict(warehouse.query(settings, f"select * from {view} limit 0").schema)
        got = (types["n_failed"], types["error_rate"], types["note"])
        assert got == (pl.Int64, pl.Float64, pl.String), view


def test_a_tone_gaps_part_from_before_the_counts_still_publishes(settings: Settings) -> None:
    """A part written before tone_gaps counted its calls gets them null at publish
    (warehouse.ADDED): its rows stay, with no failure count and no claim of none."""
    from tasks.tone.analysis import tone_gaps

    old = tone_gaps(_tone_calls(), n_boot=0).drop("n_calls", "n_failed", "n_error")
    warehouse.write_table(settings, old, "tone_gaps", "s")
    warehouse.publish_views(settings)
    got = warehouse.query(
        settings, "select judge, n_texts, n_failed, error_rate from tbl_tone_gaps"
    )
    assert sorted(got.rows()) == [("dead", 0, None, None), ("few", 3, None, None)]
