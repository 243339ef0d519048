"""Accuracy by hand: truth from the reference or the consensus, FP/FN and leniency, subsets,
failure rates; switch directions against the base prompt; the accuracy report views."""

import duckdb
import polars as pl
import pytest

from judgelab.settings import Settings
from schemas.accuracy_metrics import AccuracyMetrics
from schemas.consensus import Consensus
from schemas.switch_rates import SwitchRates
from schemas.validate import validate
from schemas.verdict_levels import VerdictLevels
from schemas.verdict_pairs import VerdictPairs
from schemas.verdict_tests import VerdictTests
from schemas.verdicts import Verdicts
from tasks import warehouse
from tasks.accuracy.consensus import consensus
from tasks.accuracy.metrics import accuracy_metrics, switch_rates

SCHEMA = {n: c.dtype.type for n, c in Verdicts.to_schema().columns.items()}


def _calls(designs: dict[tuple, list], reference: list[bool | None]) -> pl.DataFrame:
    """{(judge, level, effort): one entry per item i1, i2, …}; an entry is 1/0, a status, or a
    list of repeats of those → a validated verdicts frame."""
    rows = []
    for (judge, level, effort), entries in designs.items():
        for k, entry in enumerate(entries):
            for r, v in enumerate(entry if isinstance(entry, list) else [entry]):
                status, verdict = ("ok", v) if isinstance(v, int) else (v, None)
                design = ("s", judge, f"m/{judge}", level, effort)
                rows.append((*design, f"i{k + 1:02d}", r, status, verdict, reference[k]))
    return validate(pl.DataFrame(rows, schema=SCHEMA, orient="row"), Verdicts)


T, F, N = True, False, None
# items:        1  2  3  4  5  6  7  8  9       10                           11 12
REFERENCE = [T, T, T, T, F, F, F, F, T, F, N, N]
A = [1, 1, 1, 0, 1, 1, 0, 0, [1, 0], ["unparseable", "out_of_range"], 1, 1]
B = [1, 1, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0]
AB = _calls({("ja", "base", "default"): A, ("jb", "base", "default"): B}, REFERENCE)


def _row(out: pl.DataFrame, judge: str, subset: str) -> dict:
    return out.filter((pl.col("judge") == judge) & (pl.col("subset") == subset)).row(0, named=True)


def test_leniency_from_known_errors() -> None:
    out = accuracy_metrics(AB, consensus(AB), truth="reference")
    a = _row(out, "ja", "all")
    # truth: the reference for 1–10, the consensus (both TRUE) for 11; 12 has none (a tie)
    assert (a["n_items"], a["n_scored"], a["n_unresolved"], a["n_no_truth"]) == (11, 9, 2, 1)
    # right: 1 2 3 7 8 11; false TRUE: 5 6; false FALSE: 4
    assert (a["n_correct"], a["fp"], a["fn"]) == (6, 2, 1)
    assert a["accuracy"] == pytest.approx(6 / 9)
    assert a["leniency"] == pytest.approx(2 / 3) and a["strictness"] == pytest.approx(1 / 3)
    assert a["true_rate"] == pytest.approx(6 / 9)  # 1 2 3 5 6 11
    assert (a["n_calls"], a["unparseable_rate"]) == (14, pytest.approx(2 / 14))
    assert a["truth_source"] == "mixed"
    b = _row(out, "jb", "all")
    assert (b["n_scored"], b["n_correct"], b["fp"], b["fn"]) == (11, 8, 1, 2)
    assert b["leniency"] == pytest.approx(1 / 3)


def test_subset_rows() -> None:
    out = accuracy_metrics(AB, consensus(AB), truth="reference")
    assert out.height == 2 * 4
    full = _row(out, "ja", "full")  # 1 2 4 5 7 8 11: both designs agree
    assert (full["n_items"], full["n_correct"], full["fp"], full["fn"]) == (7, 5, 1, 1)
    amb = _row(out, "ja", "ambiguous")  # 3 6 9 10 12
    assert (amb["n_items"], amb["n_scored"], amb["n_no_truth"]) == (4, 2, 1)
    assert (amb["fp"], amb["fn"], amb["leniency"]) == (1, 0, 1.0)
    near = _row(out, "ja", "near")  # two designs cannot nearly agree: an empty subset
    assert (near["n_items"], near["n_calls"]) == (0, 0)
    assert near["accuracy"] is None and near["truth_source"] is None
    assert near["unparseable_rate"] is None


def test_repeat_noise_is_the_mean_sd_over_repeated_items() -> None:
    """repeat_sd: the mean over items with ≥ 2 ok repeats of the SD (n − 1) of the verdicts."""
    noisy = _calls(
        {
            # item:           1          2       3       4               5
            ("ja", "base", "low"): [[1, 1, 0], [1, 0], [0, 0], [1, "error"], [1, 0, 0, 1]],
            ("jb", "base", "low"): [1, 0, 1, 0, 1],  # one repeat: no noise to measure
        },
        [T, F, T, F, N],
    )
    out = accuracy_metrics(noisy, consensus(noisy, votes="design"), truth="reference")
    a = _row(out, "ja", "all")
    # SDs: 1 → √(1/3), 2 → √½, 3 → 0, 5 → √(1/3); 4 has one ok repeat and stays out
    sds = [(1 / 3) ** 0.5, 0.5**0.5, 0.0, (1 / 3) ** 0.5]
    assert a["n_repeated"] == 4  # item 5 counts although it has no truth
    assert a["repeat_sd"] == pytest.approx(sum(sds) / 4)  # not the median (√(1/3))
    b = _row(out, "jb", "all")
    assert (b["n_repeated"], b["repeat_sd"]) == (0, None)
    per_subset = out.filter((pl.col("judge") == "ja") & (pl.col("subset") != "all"))
    assert per_subset["n_repeated"].sum() == 4


def test_consensus_truth() -> None:
    out = accuracy_metrics(AB, consensus(AB), truth="consensus")
    a = _row(out, "ja", "all")
    # consensus labels only where both resolved and agree: 1 2 4 5 7 8 11
    assert (a["n_items"], a["n_no_truth"], a["accuracy"], a["leniency"]) == (7, 5, 1.0, None)
    assert a["truth_source"] == "consensus"
    with pytest.raises(ValueError, match="truth"):
        accuracy_metrics(AB, consensus(AB), truth="humans")


# switch directions: ja at low effort, base vs short_icl (and long_icl identical to base)
SWITCH_REF = [T, F, T, F, T, F, T]
BASE = [1, 1, 0, 0, 1, 0, 1]
SHORT = [1, 0, 1, 0, 0, 0, "error"]  # item 7 unresolved: left out
SWITCH = _calls(
    {
        ("ja", "base", "low"): BASE,
        ("ja", "short_icl", "low"): SHORT,
        ("ja", "long_icl", "low"): BASE,
        ("ja", "base", "high"): BASE,  # no in-context design at this effort: no rows
        ("jc", "long_icl", "low"): BASE,  # no base design to compare with: no rows
    },
    SWITCH_REF,
)


def test_switch_directions() -> None:
    out = switch_rates(SWITCH, consensus(SWITCH), truth="reference")
    assert set(out.select("judge", "reasoning_effort", "prompt_level").unique().rows()) == {
        ("ja", "low", "short_icl"),
        ("ja", "low", "long_icl"),
    }
    assert out.height == 2 * 4
    short = out.filter((pl.col("prompt_level") == "short_icl") & (pl.col("subset") == "all"))
    s = short.row(0, named=True)
    assert s["n_items"] == 6
    # base right on 1 4 5 6, short_icl right on 1 2 3 4 6
    assert s["accuracy_base"] == pytest.approx(4 / 6)
    assert s["accuracy_level"] == pytest.approx(5 / 6)
    assert s["wrong_to_right"] == pytest.approx(2 / 6)  # items 2 and 3
    assert s["right_to_wrong"] == pytest.approx(1 / 6)  # item 5
    assert s["net_change"] == pytest.approx(s["accuracy_level"] - s["accuracy_base"])
    assert s["true_to_false"] == pytest.approx(2 / 6)  # items 2 and 5
    assert s["false_to_true"] == pytest.approx(1 / 6)  # item 3
    long = out.filter((pl.col("prompt_level") == "long_icl") & (pl.col("subset") == "all"))
    assert long.select("wrong_to_right", "right_to_wrong", "true_to_false").row(0) == (0, 0, 0)
    per_subset = out.filter((pl.col("prompt_level") == "short_icl") & (pl.col("subset") != "all"))
    assert per_subset["n_items"].sum() == 6


def _views(settings: Settings, *names: str) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    for name in names:
        con.execute(warehouse.render_view(warehouse.SQL_DIR / f"{name}.sql", settings))
    return con


def test_accuracy_by_design_view(settings: Settings) -> None:
    metrics = accuracy_metrics(AB, consensus(AB), truth="reference")
    warehouse.write_table(settings, metrics, "accuracy_metrics", "s")
    warehouse.write_table(settings, AB, "verdicts", "s")
    con = _views(
        settings,
        "staging/stg_accuracy_metrics",
        "staging/stg_verdicts",
        "reports/tbl_accuracy_by_design",
    )
    got = con.sql(
        "select judge, n_scored, acc_pct, n_full, acc_full_pct, n_near, acc_near_pct, "
        "n_ambiguous, acc_ambiguous_pct, fp, fn, leniency_pct, unparseable_pct, repeat_sd, "
        "n_failed, error_rate, note from tbl_accuracy_by_design"
    ).pl()
    assert got.rows() == [
        # ja: item 9 is its only item with two ok repeats (1, 0): SD √½; item 10's two calls
        # failed (unparseable, out of range), neither a provider error
        ("ja", 9, 66.7, 7, 71.4, 0, None, 2, 50.0, 2, 1, 66.7, 14.3, 0.707, 2, 0.0, None),
        ("jb", 11, 72.7, 7, 71.4, 0, None, 4, 75.0, 1, 2, 33.3, 0.0, None, 0, 0.0, None),
    ]


def _metrics(rows: list[tuple]) -> pl.DataFrame:
    """(judge, level, effort, accuracy, leniency[, repeat_sd]) → accuracy_metrics rows of
    subset "all"."""
    schema = {n: c.dtype.type for n, c in AccuracyMetrics.to_schema().columns.items()}
    base = dict.fromkeys(schema) | {"study": "s", "subset": "all"}
    return pl.DataFrame(
        [
            base
            | {"judge": j, "model": f"m/{j}", "prompt_level": p, "reasoning_effort": e}
            | {"accuracy": acc, "leniency": len_, "repeat_sd": sd[0] if sd else None}
            for j, p, e, acc, len_, *sd in rows
        ],
        schema=schema,
    )


def test_by_effort_prompt_and_model_views(settings: Settings) -> None:
    metrics = _metrics(
        [
            ("ja", "base", "low", 0.80, 0.50, 0.1),
            ("ja", "long_icl", "low", 0.90, 0.25, 0.3),
            ("ja", "base", "high", 0.70, 0.75, 0.2),
            ("jn", "base", "n/a", 0.60, 1.00),  # no effort control: its own row; one repeat
            ("jn", "long_icl", "n/a", None, None),  # scored nothing: not averaged
        ]
    )
    warehouse.write_table(settings, metrics, "accuracy_metrics", "s")
    con = _views(
        settings,
        "staging/stg_accuracy_metrics",
        "marts/fct_accuracy_by_factor",
        "reports/tbl_accuracy_by_effort",
        "reports/tbl_accuracy_by_prompt",
        "reports/tbl_accuracy_by_model",
    )
    cols = "n_designs, mean_acc_pct, min_acc_pct, max_acc_pct, mean_leniency_pct, mean_repeat_sd"
    effort = con.sql(f"select reasoning_effort, {cols} from tbl_accuracy_by_effort").pl()
    assert effort.rows() == [
        ("low", 2, 85.0, 80.0, 90.0, 37.5, 0.2),
        ("high", 1, 70.0, 70.0, 70.0, 75.0, 0.2),
        ("n/a", 1, 60.0, 60.0, 60.0, 100.0, None),  # repeats = 1: no noise measured
    ]
    prompt = con.sql(f"select prompt_level, {cols} from tbl_accuracy_by_prompt").pl()
    assert prompt.rows() == [
        ("base", 3, 70.0, 60.0, 80.0, 75.0, 0.15),  # (0.1 + 0.2) / 2: jn has none
        ("long_icl", 1, 90.0, 90.0, 90.0, 25.0, 0.3),
    ]
    model = con.sql(f"select judge, {cols} from tbl_accuracy_by_model").pl()
    assert model.rows() == [
        ("ja", 3, 80.0, 70.0, 90.0, 50.0, 0.2),
        ("jn", 1, 60.0, 60.0, 60.0, 100.0, None),
    ]


def test_table13_and_14_16_views_count_the_errors(settings: Settings) -> None:
    """Tables 13–16 report "accuracy, leniency, and error counts": fp / fn are the row's
    designs' false TRUEs and false FALSEs, summed (by subset for Table 13, per model × subset
    for Tables 14–16)."""
    metrics = accuracy_metrics(AB, consensus(AB), truth="reference")
    warehouse.write_table(settings, metrics, "accuracy_metrics", "s")
    con = _views(
        settings,
        "staging/stg_accuracy_metrics",
        "marts/fct_accuracy_by_factor",
        "reports/tbl_accuracy_by_prompt",
        "reports/tbl_accuracy_by_effort",
        "reports/tbl_accuracy_by_model",
    )
    by_model = con.sql("select judge, fp, fn from tbl_accuracy_by_model where subset = 'all'")
    assert by_model.fetchall() == [("ja", 2, 1), ("jb", 1, 2)]  # as tbl_accuracy_by_design
    for view in ("tbl_accuracy_by_prompt", "tbl_accuracy_by_effort"):
        assert con.sql(f"select fp, fn from {view} where subset = 'all'").fetchall() == [(3, 3)]
    per_subset = metrics.group_by("subset", "judge").agg(pl.col("fp", "fn").sum())
    got = con.sql("select subset, judge, fp, fn from tbl_accuracy_by_model").pl()
    assert got.sort("subset", "judge").equals(per_subset.sort("subset", "judge"))


def test_switch_rates_view(settings: Settings) -> None:
    warehouse.write_table(settings, switch_rates(SWITCH, consensus(SWITCH)), "switch_rates", "s")
    con = _views(settings, "staging/stg_switch_rates", "reports/tbl_switch_rates")
    got = con.sql(
        "select prompt_level, n_items, acc_base_pct, acc_level_pct, wrong_to_right_pct, "
        "right_to_wrong_pct, net_change_pct, true_to_false_pct, false_to_true_pct "
        "from tbl_switch_rates where subset = 'all'"
    ).pl()
    assert got.rows() == [
        ("short_icl", 6, 66.7, 83.3, 33.3, 16.7, 16.7, 33.3, 16.7),
        ("long_icl", 7, 71.4, 71.4, 0.0, 0.0, 0.0, 0.0, 0.0),  # base right on 1 4 5 6 7
    ]


STAGING = {
    "verdicts": Verdicts,
    "consensus": Consensus,
    "accuracy_metrics": AccuracyMetrics,
    "switch_rates": SwitchRates,
    "verdict_tests": VerdictTests,
    "verdict_pairs": VerdictPairs,
    "verdict_levels": VerdictLevels,
}
MARTS = ["fct_verdict_choice_tests", "fct_accuracy_by_factor"]
REPORTS = [
    "tbl_consensus_subsets",
    "tbl_consensus_disagreements",
    "tbl_accuracy_by_design",
    "tbl_accuracy_by_model",
    "tbl_accuracy_by_prompt",
    "tbl_accuracy_by_effort",
    "tbl_switch_rates",
    "tbl_verdict_tests",
    "tbl_verdict_impact",
    "tbl_verdict_impact_levels",
    "tbl_verdict_impact_pairs",
]


def test_accuracy_views_answer_before_any_accuracy_study(settings: Settings) -> None:
    """A warehouse with only rating studies still publishes every view: these are empty, and
    each staging view has its schema's columns and types (from the empty typed parts)."""
    sql_types = {"String": "VARCHAR", "Int64": "BIGINT", "Float64": "DOUBLE", "Boolean": "BOOLEAN"}
    assert set(STAGING) <= set(warehouse.ensure_tables(settings))
    assert warehouse.ensure_tables(settings) == []  # idempotent: nothing left to create
    con = _views(
        settings,
        *(f"staging/stg_{t}" for t in STAGING),
        *(f"marts/{m}" for m in MARTS),
        *(f"reports/{r}" for r in REPORTS),
    )
    for table, model in STAGING.items():
        expected = [(n, sql_types[str(c.dtype)]) for n, c in model.to_schema().columns.items()]
        described = con.sql(f"describe stg_{table}").fetchall()
        assert [(r[0], r[1]) for r in described] == expected, table
    for view in REPORTS:
        assert con.sql(f"select count(*) from {view}").fetchall() == [(0,)]
