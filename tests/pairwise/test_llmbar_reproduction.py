"""LLMBar's published table, reproduced: studies/llmbar.toml imports every Natural evaluator ×
strategy through the `[[imports]]` mapping and the pairwise stages (0 calls), and
pairwise_order_accuracy gives exactly the counts of the authors' statistics.json and its κ
values to 1e-9. The import equals the test's own reading of result.json (llmbar_oracle). The
Rating strategies imported the judgelab way (scores compared, equal scores a tie) differ from
the stored winners only by the authors' tie-break: a tie goes to the answer shown second. No
text is printed."""

from __future__ import annotations

import re
from pathlib import Path

import llmbar_oracle as lv
import polars as pl
import pytest

from judgelab.settings import PROJECT_ROOT, Settings
from judgelab.study import load_study
from tasks import warehouse
from tasks.benchmarks import llmbar
from tasks.imports.stage import import_stage
from tasks.pairwise import stages
from tasks.pairwise.order_accuracy import order_accuracy_table
from tasks.sources import fetch

COUNTS = ["n", "correct_ab", "correct_ba", "correct_both", "equal"]
KAPPAS = ["kappa_ab", "kappa_ba", "kappa_average", "kappa_agreement"]
# equal scores per Rating strategy: each is a tie in judgelab, a position win in the files
RATING_TIES = {"ChatGPT/Rating": 47, "ChatGPT/Rating_NoRules": 42, "GPT-4/Rating": 10}
RATING_TIES |= {"GPT-4/Rating_Metrics": 7, "GPT-4/Rating_Metrics_Reference": 8}
RATING_TIES |= {"GPT-4/Rating_NoRules": 12, "GPT-4/Rating_Reference": 6}


@pytest.fixture(scope="module")
def study_settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    from conftest import mirror_dir

    return Settings(data_dir=tmp_path_factory.mktemp("llmbar"), data_mirror=mirror_dir())


@pytest.fixture(scope="module")
def files(study_settings: Settings) -> list[Path]:
    return fetch([llmbar.BENCHMARK], study_settings)


@pytest.fixture(scope="module")
def run(study_settings: Settings) -> dict[str, int]:
    """studies/llmbar.toml's stages up to the analysis, as `judgelab run` calls them."""
    study = load_study(PROJECT_ROOT / "studies" / "llmbar.toml")
    stages.load_pairs.fn(study, study_settings)
    stages.make_plan.fn(study, study_settings)
    written = import_stage.fn(study, study_settings, "test")
    again = import_stage.fn(study, study_settings, "test-again")
    counts, _ = stages.make_plan.fn(study, study_settings)  # what the judge stage would call
    stages.analysis_stage.fn(study, study_settings)
    return {"missing": sum(c["missing"] for c in counts.values()), "written": written} | {
        "again": again
    }


@pytest.fixture(scope="module")
def imported(
    files: list[Path], run: dict, study_settings: Settings
) -> dict[str, tuple[list[dict], pl.DataFrame]]:
    """Per `evaluator/strategy`: its result.json records and the study's pairwise_verdicts
    (judge as `evaluator/strategy`, model the evaluator, as the oracle names them)."""
    table = warehouse.read_table(study_settings, "pairwise_verdicts", "llmbar")
    table = table.with_columns(
        pl.concat_str("judge", pl.lit("/"), "prompt_level").alias("judge"),
        pl.col("judge").alias("model"),
    )
    out = {}
    for evaluator, strategy, path in llmbar.evaluator_files(files).iter_rows():
        judge = f"{evaluator}/{strategy}"
        out[judge] = (llmbar.read_json(Path(path)), table.filter(pl.col("judge") == judge))
    return out


def test_the_import_makes_no_call_and_is_idempotent(run: dict) -> None:
    assert run == {"missing": 0, "written": 13_000, "again": 0}  # 65 designs × 100 × 2


def test_the_import_equals_the_oracles_reading(files: list[Path], imported: dict) -> None:
    pairs = llmbar.from_files(files, Settings(), None)
    keys = ["pair_id", "shown_first"]
    for judge, (records, got) in imported.items():
        read = lv.score_winners(records) if lv.is_rating(records) else lv.stored_winners(records)
        want = lv.verdicts(read, pairs, lv.design("llmbar", *judge.split("/")))
        columns = [*keys, "status", "position", "winner", "preferred"]
        assert got.select(columns).sort(keys).equals(want.select(columns).sort(keys)), judge


def test_every_published_count_and_kappa_is_reproduced(files: list[Path], imported: dict) -> None:
    verdicts = pl.concat(
        [lv.authors_rating_rule(v) if lv.is_rating(r) else v for r, v in imported.values()]
    )
    got = order_accuracy_table(verdicts).select(
        pl.col("model").alias("evaluator"),
        pl.col("prompt_level").alias("strategy"),
        pl.col("n_units").alias("n"),
        *COUNTS[1:],
        "correct_average",
        *KAPPAS,
    )
    published = llmbar.published(files)
    both = published.join(got, on=["evaluator", "strategy"], how="full", suffix="_got")
    assert both.height == published.height == 65
    for column in COUNTS:
        wrong = both.filter(pl.col(column) != pl.col(f"{column}_got"))
        assert wrong.height == 0, (column, wrong.select("evaluator", "strategy").rows())
    for column in ["correct_average", *KAPPAS]:
        gap = (both[column] - both[f"{column}_got"]).abs()
        assert gap.null_count() == 0 and gap.max() < 1e-9, column


def test_the_authors_read_the_last_round(imported: dict) -> None:
    """Swap strategies: a second, synthesizing round settles the first round's disagreements,
    and the authors count it; where it ran, the first round is not what they published."""
    records, verdicts = imported["GPT-4/Swap"]
    rounds = [len(r["results"]) for r in records]
    assert set(rounds) == {1, 2} and rounds.count(2) == 7
    first = [r["results"][0]["swap = False"]["winner"] for r in records]
    last = [r["results"][-1]["swap = False"]["winner"] for r in records]
    assert first != last
    stored = dict(verdicts.filter(shown_first="a").select("pair_id", "winner").iter_rows())
    assert [stored[llmbar.pair_id(i)] for i in range(len(records))] == [
        {"1": "a", "2": "b"}.get(w) for w in last
    ]


def test_failed_parses_count_as_the_authors_count_them(imported: dict) -> None:
    """A completion no pattern matched has no winner (status unparseable), never a tie."""
    failed = {
        judge: v.filter(pl.col("status") != "ok").height
        for judge, (_, v) in imported.items()
        if (v["status"] != "ok").any()
    }
    assert failed == {
        "ChatGPT/CoT": 1,
        "Falcon/Metrics": 1,
        "LLaMA2/Vanilla_1shot": 1,
        "PaLM2/CoT": 2,
        "PaLM2/Metrics": 4,
        "PaLM2/Metrics_Reference": 4,
        "PaLM2/Reference": 4,
        "PaLM2/Swap": 2,
        "PaLM2/Swap_CoT": 2,
        "PaLM2/Vanilla": 4,
        "PaLM2/Vanilla_NoRules": 6,
    }
    for records, v in imported.values():  # no comparison prompt offers a tie
        assert lv.is_rating(records) or (v["winner"] == "tie").sum() == 0


def test_rating_ties_go_to_the_answer_shown_second(imported: dict) -> None:
    ties = {}
    for judge, (records, ours) in imported.items():
        if not lv.is_rating(records):
            continue
        design = lv.design("llmbar", *judge.split("/"))
        pairs = ours.select("pair_id", "preferred").unique()
        stored = lv.verdicts(lv.stored_winners(records), pairs, design)
        assert ours.filter(pl.col("status") != "ok").height == 0  # every score an integer
        explained = lv.authors_rating_rule(ours)
        keys = ["pair_id", "shown_first"]
        assert explained.sort(keys).equals(stored.sort(keys)), judge
        differ = ours.join(stored, on=keys).filter(
            pl.col("winner").ne_missing(pl.col("winner_right"))
        )
        assert (differ["winner"] == "tie").all()  # only the ties differ, in both orders
        ties[judge] = differ.height // 2
    assert ties == RATING_TIES


def test_the_rule_covers_the_authors_other_branches() -> None:
    """evaluate.py's Rating branch on made-up scores: s1 > s2 names output 1 in both orders,
    equal scores name output 2 then 1, a score `int` cannot read names output 1 then 2 (the
    answer shown first); the rule maps judgelab's import onto exactly those."""
    scores = [("9", "3"), ("2", "8"), (" 7\n", "7"), ("8", "Score: 8")]
    authors = [("1", "1"), ("2", "2"), ("2", "1"), ("1", "2")]
    records = [
        {"results": [{"score_1": [s1, "stop"], "score_2": [s2, "stop"]}]} for s1, s2 in scores
    ]
    ids = [llmbar.pair_id(i) for i in range(len(scores))]
    pairs = pl.DataFrame({"pair_id": ids, "preferred": ["a"] * len(ids)})
    ours = lv.verdicts(lv.score_winners(records), pairs, lv.design("t", "E", "Rating"))
    assert ours.filter(shown_first="a")["winner"].to_list() == ["a", "b", "tie", None]
    got = lv.authors_rating_rule(ours).sort("pair_id", "shown_first")["winner"].to_list()
    assert got == [{"1": "a", "2": "b"}[w] for pair in authors for w in pair]


def test_the_view_shows_the_papers_percentages(imported: dict, settings: Settings) -> None:
    """tbl_pairwise_order_accuracy on two imported designs prints what statistics.json says
    (GPT-4/Vanilla: 95.0, 96.0, 95.5, 93.0, 95.0; PaLM2/Vanilla_NoRules: 77.0, 87.0, 82.0,
    74.0, 84.0, with 3 items failed in both orders)."""
    from tasks import warehouse

    verdicts = pl.concat([imported[j][1] for j in ("GPT-4/Vanilla", "PaLM2/Vanilla_NoRules")])
    warehouse.write_table(settings, order_accuracy_table(verdicts), "pairwise_order_accuracy", "s")
    warehouse.publish_views(settings)
    columns = "correct_ab_pct, correct_ba_pct, correct_average_pct, correct_both_pct, equal_pct"
    got = warehouse.query(
        settings,
        f"select judge, {columns}, n_none_both, n_failed from tbl_pairwise_order_accuracy",
    )
    assert got.rows() == [
        ("GPT-4/Vanilla", 95.0, 96.0, 95.5, 93.0, 95.0, 0, 0),
        ("PaLM2/Vanilla_NoRules", 77.0, 87.0, 82.0, 74.0, 84.0, 3, 6),
    ]


def test_llmbar_designs_get_the_accuracy_studys_paired_tests(
    run: dict, study_settings: Settings, files: list[Path]
) -> None:
    """Cochran's Q over the 65 evaluator × strategy designs, a chi-square screen per choice,
    and McNemar for every pair of designs differing in evaluator only or strategy only."""
    tests = warehouse.read_table(study_settings, "verdict_tests", "llmbar")
    assert sorted(tests.select("test", "choice").rows()) == [
        ("chi2_independence", "model"),
        ("chi2_independence", "prompt_level"),
        ("cochran_q", "design"),
    ]
    q = tests.filter(pl.col("test") == "cochran_q").row(0, named=True)
    assert q["n_levels"] == 65 and q["p"] < 1e-6  # strategies and evaluators differ a lot
    designs = llmbar.evaluator_files(files).select("evaluator", "strategy")

    def pairs_within(key: str) -> int:  # designs sharing `key`, differing in the other choice
        return sum(n * (n - 1) // 2 for n in designs.group_by(key).len()["len"])

    pairs = warehouse.read_table(study_settings, "verdict_pairs", "llmbar")
    assert pairs.group_by("choice").len().sort("choice").rows() == [
        ("model", pairs_within("strategy")),  # same strategy, another evaluator
        ("prompt_level", pairs_within("evaluator")),
    ]


def test_llmbar_variance_splits_judge_strategy_and_order(
    study_settings: Settings, run: dict
) -> None:
    """Right-or-wrong over 65 designs: the evaluator explains more than the strategy, and
    both more than the order of the two outputs (the headline's ranking, by another route)."""
    table = warehouse.read_table(study_settings, "variance_components", "llmbar")
    share = dict(
        table.filter(pl.col("method") == "type1_anova").select("component", "eta_sq").iter_rows()
    )
    assert set(share) == {
        "judge", "prompt_level", "order", "item", "judge:prompt_level", "judge:order",
        "prompt_level:order", "judge:item", "residual",
    }  # fmt: skip
    assert share["judge"] > share["prompt_level"] > share["order"] > 0
    assert sum(share.values()) == pytest.approx(1.0, abs=1e-9)


def test_llmbar_g_study_and_d_study(study_settings: Settings, run: dict) -> None:
    """The G-study of right-or-wrong on the published verdicts: the balanced subset keeps most
    pairs; among the design facets the evaluator's own component is the largest (the paper's
    "model identity is the dominant source of variance", with random effects); the D-study's
    Eρ² grows with the evaluators averaged over and Φ never exceeds it."""
    table = warehouse.read_table(study_settings, "variance_components", "llmbar")
    random = {r["component"]: r for r in table.filter(pl.col("method") == "random_ems").to_dicts()}
    assert len(random) == 15
    assert random["judge"]["variance"] > max(
        random["prompt_level"]["variance"], random["order"]["variance"]
    )
    kept = re.search(r"(\d+) of 100 items", random["item"]["note"])
    assert kept and int(kept.group(1)) >= 90
    d = warehouse.read_table(study_settings, "d_study", "llmbar")
    assert d.height == 5 * 3 * 2 and d["n_scales"].is_null().all()
    for _, grp in d.group_by("n_prompt_levels", "n_orders"):
        g = grp.sort("n_judges")["g_relative"].to_list()
        assert g == sorted(g) and g[-1] > g[0]
    assert (d["phi"] <= d["g_relative"] + 1e-12).all()


def test_imported_winners_have_no_distribution_and_calibration_counts_them(
    run: dict, study_settings: Settings
) -> None:
    """LLMBar's files hold winners, not probabilities: each of the 65 designs gets its
    calibration row, every answered call counted in n_no_probs (as many as the parsed calls of
    pairwise_verdicts), and no number to gate on."""
    study = load_study(PROJECT_ROOT / "studies" / "llmbar.toml")
    assert stages.calibration_stage.fn(study, study_settings) == 0
    table = warehouse.read_table(study_settings, "calibration", "llmbar")
    verdicts = warehouse.read_table(study_settings, "pairwise_verdicts", "llmbar")
    assert table.height == 65 and (table["n_no_probs"] == table["n_ok"]).all()
    assert table["n_ok"].sum() == verdicts.filter(pl.col("status") == "ok").height
    assert table["ece"].is_null().all() and table["brier"].is_null().all()
    assert warehouse.read_table(study_settings, "calibration_bins", "llmbar").is_empty()
