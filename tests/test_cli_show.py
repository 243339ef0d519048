"""`show`/`export`, `tables`, `sql` and help: tables that fit the terminal without splitting a
word, a view list led by report views, SQL errors on one line, an example in every help."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest

from judgelab.arguments import build_parser
from judgelab.cli import main
from judgelab.settings import PROJECT_ROOT, Settings
from judgelab.views_cli import describe, report_groups
from tasks import warehouse

# design names long enough that a wrapping table would split them
JUDGES = ["sched-small-judge", "sched-large-judge"]
SCALES = ["likert7", "bipolar3", "slider"]


def _metrics() -> pl.DataFrame:
    """rating_metrics of two studies: every design of study "wide", one of study "other"."""
    designs = [("wide", j, s) for j in JUDGES for s in SCALES] + [("other", JUDGES[0], "slider")]
    schema = warehouse.table_schema("rating_metrics").to_schema().columns
    rows = []
    for k, (study, judge, scale) in enumerate(designs):
        row: dict = {}
        for name, col in schema.items():
            if col.dtype.type == pl.String:
                row[name] = "x"
            elif col.dtype.type.is_integer():
                row[name] = 10
            else:
                row[name] = 0.25
        row.update(study=study, kind="judge", judge=judge, model=f"fake/{judge}")
        row.update(prompt_level="base", scale=scale, bias=0.1 * k, mae=0.5 + 0.01 * k)
        rows.append(row)
    return pl.DataFrame(rows, schema={n: c.dtype.type for n, c in schema.items()})


@pytest.fixture
def published(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> pl.DataFrame:
    monkeypatch.setenv("JUDGELAB_DATA_DIR", str(tmp_path / "data"))
    metrics = _metrics()
    warehouse.write_table(Settings(), metrics, "rating_metrics", "wide")
    warehouse.publish_views(Settings())
    return metrics


def _words(text: str) -> set[str]:
    return set(re.findall(r"[\w.-]+", text))


def test_show_fits_the_terminal_one_row_per_design_no_word_split(
    published: pl.DataFrame, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    argv = ["show", "tbl_rating_performance", "--columns", "study,judge,scale,bias,mae"]
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert max(map(len, lines)) <= 100
    assert lines[1].split() == [
        "│",
        "study",
        "┆",
        "judge",
        "┆",
        "scale",
        "┆",
        "bias",
        "┆",
        "mae",
        "│",
    ]
    body = [ln for ln in lines if ln.startswith("│")][1:]
    assert len(body) == published.height  # one line per design: no cell wrapped
    shown = {tuple(c.strip() for c in ln.strip("│").split("┆"))[:3] for ln in body}
    assert shown == set(published.select("study", "judge", "scale").rows())


def test_show_without_columns_drops_what_does_not_fit_and_names_it(
    published: pl.DataFrame, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    assert main(["show", "tbl_rating_performance"]) == 0
    out = capsys.readouterr().out
    assert max(map(len, out.splitlines())) <= 100
    assert {"sched-small-judge", "sched-large-judge"} <= _words(out)  # whole, never split
    assert "more columns (choose with --columns):" in out and "human_alpha" in out
    monkeypatch.delenv("COLUMNS")  # a pipe (pytest's capture): every column, nothing dropped
    assert main(["show", "tbl_rating_performance"]) == 0
    out = capsys.readouterr().out
    assert "more columns" not in out and "human_alpha" in out.splitlines()[1]


def test_show_where_limit_and_export_share_the_options(
    published: pl.DataFrame, capsys: pytest.CaptureFixture, tmp_path: Path
) -> None:
    argv = ["--columns", "judge,scale", "--where", "study = 'wide' and scale <> 'slider'"]
    assert main(["export", "tbl_rating_performance", *argv]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "judge,scale"  # export defaults to CSV
    want = published.filter((pl.col("study") == "wide") & (pl.col("scale") != "slider"))
    assert sorted(lines[1:]) == sorted(f"{j},{s}" for j, s in want.select("judge", "scale").rows())
    assert main(["show", "tbl_rating_performance", *argv, "--limit", "1", "--format", "csv"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 2
    out = tmp_path / "t.md"
    argv = ["--limit", "2", "--format", "md", "-o", str(out)]
    assert main(["show", "tbl_rating_performance", *argv]) == 0
    assert len(out.read_text().splitlines()) == 4  # header, rule, two rows


def test_show_refuses_unknown_columns_and_views_in_one_line(
    published: pl.DataFrame, capsys: pytest.CaptureFixture
) -> None:
    assert main(["show", "tbl_rating_performance", "--columns", "study,nope"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert "no column 'nope'" in line and "judge" in line
    assert main(["show", 'tbl_runs" ; drop view tbl_runs; --']) == 2
    assert "no view" in capsys.readouterr().err
    assert main(["show", "tbl_rating_performance", "--where", "nope = 1"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("judgelab: Binder Error:") and "nope" in line


def test_sql_error_is_one_line_with_duckdbs_hint(
    published: pl.DataFrame, capsys: pytest.CaptureFixture
) -> None:
    assert main(["sql", "select * from tbl_runz"]) == 2
    captured = capsys.readouterr()
    (line,) = captured.err.splitlines()
    assert captured.out == ""
    assert "tbl_runz does not exist" in line and 'Did you mean "tbl_runs"' in line
    assert main(["sql", "selec 1"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert "syntax error" in line


def test_tables_lists_report_views_by_study_type_first(capsys: pytest.CaptureFixture) -> None:
    files = {f.stem: f for f in warehouse.view_files()}
    reports = sorted(v for v in files if v.startswith("tbl_"))
    grouped = [v for views in report_groups().values() for v in views]
    assert sorted(set(grouped)) == reports  # every report view in a group
    # once per group; in several only when study types share it (judge-corrected estimates;
    # calibration of verdicts and of pairwise winners)
    assert all(len(set(views)) == len(views) for views in report_groups().values())
    shared = {"tbl_corrected", "tbl_calibration", "tbl_calibration_bins"}
    assert {v for v in grouped if grouped.count(v) > 1} == shared
    assert main(["tables"]) == 0
    lines = capsys.readouterr().out.splitlines()
    listed = [ln.split()[0] for ln in lines if ln.startswith("  ")]
    assert listed == grouped
    groups = [f"{g}:" for g in report_groups()]
    assert [ln for ln in lines if not ln.startswith("  ")][: len(groups)] == groups
    assert main(["tables", "--all"]) == 0
    listed = [ln.split()[0] for ln in capsys.readouterr().out.splitlines() if ln.startswith("  ")]
    assert listed[: len(grouped)] == grouped and sorted(set(listed)) == sorted(files)


def test_descriptions_are_whole_sentences(tmp_path: Path) -> None:
    sql = tmp_path / "v.sql"
    sql.write_text("-- Does a judge score 1.5 points higher when it sounds\n-- confident? More.\nx")
    assert describe(sql) == "Does a judge score 1.5 points higher when it sounds confident?"
    sql.write_text("-- One line (e.g. this). Second.\n-- Third.\nselect 1")
    assert describe(sql) == "One line (e.g. this). Second."
    for f in warehouse.view_files():
        assert re.search(r"[.?!)]$", describe(f)), f.stem


def test_every_option_has_help_and_every_command_an_example(
    capsys: pytest.CaptureFixture,
) -> None:
    def commands(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
        found = []
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    found += [sub, *commands(sub)]
        return found

    subs = commands(build_parser())
    assert len(subs) >= 12
    for sub in subs:
        for action in sub._actions:
            if not isinstance(action, argparse._SubParsersAction):
                assert action.help, f"{sub.prog} {action.option_strings or action.dest}"
        with pytest.raises(SystemExit):
            main([*sub.prog.split()[1:], "--help"])
        last = capsys.readouterr().out.rstrip().splitlines()[-1]
        assert last.startswith(f"example: {sub.prog} "), last


def test_help_is_fast_because_nothing_heavy_is_imported() -> None:
    """Prints the wall time of `judgelab --help`; asserts that polars, duckdb, Prefect and
    litellm stay unimported, which is what makes it fast."""
    code = (
        "import sys\nfrom judgelab.cli import main\ntry:\n    main(['--help'])\n"
        "except SystemExit:\n    pass\n"
        "print([m for m in ('polars', 'duckdb', 'prefect', 'litellm') if m in sys.modules])"
    )
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=PROJECT_ROOT, capture_output=True, text=True, env=env
    )
    print(f"judgelab --help: {time.perf_counter() - started:.2f} s")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "[]"
    assert "example: judgelab run" in proc.stdout
