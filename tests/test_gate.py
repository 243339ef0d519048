"""The gate (`judgelab check`): rules over report views pass, fail, or are refused as broken, on
planted frames and a planted warehouse; JUnit output parses with the right counts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import polars as pl
import pytest

from judgelab.cli import main
from judgelab.settings import PROJECT_ROOT, Settings
from judgelab.study import Rule
from tasks import gate, warehouse

PERF = pl.DataFrame(
    {
        "judge": ["a", "b", "c"],
        "kripp_alpha": [0.85, 0.82, 0.9],
        "alpha_lo": [0.81, 0.75, 0.86],
        "alpha_hi": [0.9, 0.88, 0.94],
        "bias": [0.1, -0.15, 0.05],
        "bias_lo": [0.0, -0.3, -0.02],
        "bias_hi": [0.2, 0.0, 0.12],
        "sig": ["ns", "*", "ns"],
    }
)


def rule(**kw: object) -> Rule:
    return Rule.model_validate({"view": "tbl_rating_performance"} | kw)


def test_the_worst_row_decides_and_is_reported() -> None:
    passed = gate.evaluate(rule(column="kripp_alpha", op=">=", value=0.8), PERF, "s")
    assert passed.passed and passed.n_rows == 3
    assert passed.value == 0.82 and passed.ci == (0.75, 0.88)  # the lowest α, with its CI
    assert passed.line == (
        "PASS s · tbl_rating_performance.kripp_alpha >= 0.8: 0.82 [0.75, 0.88], 3 rows"
    )
    failed = gate.evaluate(rule(column="bias", op="<=", value=0.08), PERF)
    assert not failed.passed and failed.value == 0.1  # the highest bias
    assert failed.line.startswith("FAIL tbl_rating_performance.bias <= 0.08: 0.1 [0, 0.2]")


def test_ci_within_fails_a_noisy_pass() -> None:
    point = gate.evaluate(rule(column="kripp_alpha", op=">=", value=0.8), PERF)
    within = gate.evaluate(rule(column="kripp_alpha", op=">=", value=0.8, ci="within"), PERF)
    assert point.passed and not within.passed
    assert within.ci == (0.75, 0.88)  # judge b: point 0.82 passes, its CI crosses 0.8
    upper = rule(column="bias", op="<", value=0.25, ci="within")
    assert gate.evaluate(upper, PERF).passed  # every bias_hi is below 0.25
    assert not gate.evaluate(upper.model_copy(update={"value": 0.15}), PERF).passed


def test_no_rows_and_missing_values_fail() -> None:
    empty = gate.evaluate(rule(column="bias", op="<=", value=1), PERF.clear())
    assert not empty.passed and empty.line.endswith(": no rows")
    for missing in (None, float("nan")):  # polars orders NaN above every number
        frame = PERF.with_columns(kripp_alpha=pl.Series([0.9, missing, 0.9], dtype=pl.Float64))
        result = gate.evaluate(rule(column="kripp_alpha", op=">=", value=0.5), frame)
        assert not result.passed and result.value is None


def test_equality_ops() -> None:
    frame = pl.DataFrame({"n_items": [20, 20, 19]})
    eq = gate.evaluate(rule(column="n_items", op="==", value=20), frame)
    assert not eq.passed and eq.value == 19
    ne = gate.evaluate(rule(column="n_items", op="!=", value=19), frame)
    assert not ne.passed and ne.value == 19
    assert gate.evaluate(rule(column="n_items", op="!=", value=0), frame).passed


def test_a_rule_that_cannot_be_evaluated_is_refused_by_name() -> None:
    with pytest.raises(gate.GateError, match=r"rule \"α\": .*no column 'kripp_alfa'.*did you mean"):
        gate.evaluate(rule(name="α", column="kripp_alfa", op=">=", value=0.8), PERF)
    text = rule(column="sig", op=">=", value=0)
    with pytest.raises(gate.GateError, match="sig is String, not a number"):
        gate.evaluate(text, PERF)
    no_ci = rule(column="repeat_sd", op="<=", value=1, ci="within")
    with pytest.raises(gate.GateError, match=r'ci = "within", but .* no CI for repeat_sd'):
        gate.evaluate(no_ci, pl.DataFrame({"repeat_sd": [0.1]}))  # never the point instead


def test_rules_file_errors_name_the_file_line_and_key(tmp_path: Path) -> None:
    path = tmp_path / "rules.toml"
    path.write_text(
        '[[rules]]\nview = "tbl_runs"\ncolumn = "calls_failed"\nop = "=="\nvalue = 0\n\n'
        '[[rules]]\nview = "tbl_runs"\ncolum = "calls_made"\nop = ">"\nvalue = 0\n'
    )
    with pytest.raises(gate.GateError) as err:
        gate.load_rules(path)
    assert f"{path}: line 9, rules.1.colum: unknown key; did you mean 'column'?" in str(err.value)
    path.write_text('[[rules]]\nview = "v"\ncolumn = "c"\nop = "=="\nvalue = 0\nci = "within"\n')
    with pytest.raises(gate.GateError, match=r"line 6, rules.0.ci: ci = .within. needs >="):
        gate.load_rules(path)
    path.write_text('[[rule]]\nview = "v"\n')
    with pytest.raises(
        gate.GateError, match=r"line 1, \[rule\]: unknown table; did you mean 'rules'"
    ):
        gate.load_rules(path)
    path.write_text(RULES)
    assert [r.column for r in gate.load_rules(path)] == ["kripp_alpha", "bias"]


def test_junit_xml_parses_with_counts() -> None:
    results = [
        gate.evaluate(rule(column="kripp_alpha", op=">=", value=0.8), PERF, "s"),
        gate.evaluate(rule(column="bias", op="<=", value=0.08), PERF, "s"),
        gate.evaluate(rule(name="none", column="bias", op="<=", value=1), PERF.clear(), "s"),
    ]
    suite = ET.fromstring(gate.junit_xml(results, "x")).find("testsuite")
    assert (suite.get("tests"), suite.get("failures")) == ("3", "2")
    cases = suite.findall("testcase")
    assert [c.find("failure") is not None for c in cases] == [False, True, True]
    assert cases[2].find("failure").get("message") == "no rows"


# ---- on a planted warehouse -----------------------------------------------------------------

RULES = """[[rules]]
name = "alpha"
view = "tbl_rating_performance"
where = "kind = 'judge'"
column = "kripp_alpha"
op = ">="
value = 0.8

[[rules]]
view = "tbl_rating_performance"
column = "bias"
op = "<="
value = 0.2
ci = "within"
"""

STUDY = """[study]
name = "gate"
task = "sentiment"
benchmark = "vader"
sample_size = 3
prompt_levels = ["base"]
scales = ["likert7"]

[[judges]]
name = "a"
model = "fake/x"
"""


def plant(settings: Settings) -> None:
    """rating_metrics rows for study "gate" (two judges) and one for another study, whose bad
    α must not count; then the views, as a run publishes them."""
    rows = pl.DataFrame(
        {
            "study": ["gate", "gate", "other"],
            "judge": ["a", "b", "a"],
            "kripp_alpha": [0.85, 0.82, 0.1],
            "alpha_lo": [0.81, 0.75, 0.0],
            "alpha_hi": [0.9, 0.88, 0.2],
            "bias": [0.1, -0.15, 0.9],
            "bias_lo": [0.0, -0.3, 0.8],
            "bias_hi": [0.18, 0.0, 1.0],
        }
    ).with_columns(
        kind=pl.lit("judge"),
        model=pl.lit("fake/x"),
        prompt_level=pl.lit("base"),
        scale=pl.lit("likert7"),
        n_planned=pl.lit(40),
        n_items=pl.lit(20),
        repeat_sd=pl.lit(0.3),
        parse_failure_rate=pl.lit(0.0),
        error_rate=pl.lit(0.0),
        abs_bias=pl.col("bias").abs(),
        mae=pl.lit(0.5),
        mae_lo=pl.lit(0.4),
        mae_hi=pl.lit(0.6),
        wilcoxon_w=pl.lit(10.0),
        wilcoxon_p=pl.lit(0.5),
        p_holm=pl.lit(0.5),
        p_bh=pl.lit(0.5),
        rank_biserial=pl.lit(0.1),
        readout=pl.lit("answer"),
    )
    warehouse.write_table(settings, rows, "rating_metrics", "gate")
    warehouse.publish_views(settings)


def test_run_gate_reads_the_study_rows_of_a_view(tmp_path: Path, settings: Settings) -> None:
    plant(settings)
    (rules := tmp_path / "rules.toml").write_text(RULES)
    alpha, bias = gate.run_gate(settings, "gate", gate.load_rules(rules))
    assert alpha.line == "PASS gate · alpha: 0.82 [0.75, 0.88], 2 rows"  # not study "other"
    assert bias.passed and bias.value == 0.1 and bias.ci == (0.0, 0.18)
    (none,) = gate.run_gate(
        settings, "gate", [rule(where="judge = 'z'", column="mae", op="<", value=1)]
    )
    assert not none.passed and none.n_rows == 0
    with pytest.raises(gate.GateError, match=r'rule "tbl_rating_perf.bias .*no view'):
        gate.run_gate(
            settings, "gate", [Rule(view="tbl_rating_perf", column="bias", op="<", value=1)]
        )
    with pytest.raises(gate.GateError, match=r'rule "tbl_rating_performance.bias .*where: .*jduge'):
        gate.run_gate(settings, "gate", [rule(where="jduge = 'a'", column="bias", op="<", value=1)])


ESCAPES = [
    "1=1) or (1=1",  # unbalanced: ORed the study filter away (3 rows graded, not 2)
    'true) union all select * from "tbl_rating_performance" where (true',  # appended rows
    "true) union all (select * from tbl_rating_performance",
    "study in (select study from tbl_rating_performance)",  # a subquery: not the view's columns
    "true limit 1",
    "true order by 1",
    "true; select 1",
]


def test_a_where_is_one_condition_that_cannot_leave_its_study(
    tmp_path: Path, settings: Settings, capsys: pytest.CaptureFixture, monkeypatch
) -> None:
    """`where` is parsed by DuckDB and must be one condition; it is applied to the study's
    rows in a subquery. Each escape is refused by name (exit 2), never graded."""
    plant(settings)
    for where in ESCAPES:
        bad = rule(where=where, column="kripp_alpha", op=">=", value=0.0)
        with pytest.raises(gate.GateError, match=r'rule "tbl_rating_performance.* where: '):
            gate.run_gate(settings, "gate", [bad])
    # a condition that names the other study still sees only this study's rows
    (own,) = gate.run_gate(
        settings, "gate", [rule(where="study = 'other' or true", column="bias", op="<", value=1)]
    )
    assert own.passed and own.n_rows == 2
    monkeypatch.setenv("JUDGELAB_DATA_DIR", str(settings.data_dir))
    (study := tmp_path / "gate.toml").write_text(STUDY)
    for where in ESCAPES[:2]:
        (rules := tmp_path / "rules.toml").write_text(
            RULES.replace("where = \"kind = 'judge'\"", f"where = {json.dumps(where)}")
        )
        assert main(["check", str(study), "--rules", str(rules)]) == 2
        captured = capsys.readouterr()
        (line,) = captured.err.splitlines()
        assert line.startswith('judgelab: rule "alpha": where: ') and not captured.out


def test_check_exits_0_1_2_and_writes_junit(
    tmp_path: Path,
    settings: Settings,
    capsys: pytest.CaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plant(settings)
    monkeypatch.setenv("JUDGELAB_DATA_DIR", str(settings.data_dir))
    study = tmp_path / "gate.toml"
    study.write_text(STUDY)
    assert main(["check", str(study)]) == 2  # no rules anywhere: one line saying how to add them
    (line,) = capsys.readouterr().err.splitlines()
    assert "no rules to check" in line and "[[rules]]" in line

    study.write_text(STUDY + "\n" + RULES)  # the study's own rules
    assert main(["check", str(study)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "PASS gate · alpha: 0.82 [0.75, 0.88], 2 rows",
        "PASS gate · tbl_rating_performance.bias <= 0.2 (CI within): 0.1 [0, 0.18], 2 rows",
    ]

    # a rules file overrides them; its α rule passes on the point, fails on the CI
    (rules := tmp_path / "rules.toml").write_text(
        RULES.replace("value = 0.8", 'value = 0.8\nci = "within"')
    )
    out = tmp_path / "gate.xml"
    argv = ["check", str(study), "--rules", str(rules), "--format", "junit", "--output", str(out)]
    proc = subprocess.run(
        [sys.executable, "-m", "judgelab.cli", *argv],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "JUDGELAB_DATA_DIR": str(settings.data_dir)},
    )
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.splitlines() == [
        "FAIL gate · alpha: 0.82 [0.75, 0.88], 2 rows",
        "PASS gate · tbl_rating_performance.bias <= 0.2 (CI within): 0.1 [0, 0.18], 2 rows",
    ]
    suite = ET.parse(out).getroot().find("testsuite")
    assert (suite.get("tests"), suite.get("failures")) == ("2", "1")
    assert suite.find("testcase/failure").get("message") == "0.82 [0.75, 0.88], 2 rows"
