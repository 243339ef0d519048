"""The command line: one line of help per command, and errors that are one sentence with the
fix (missing API key, unknown scale, malformed study file with its line)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from judgelab.cli import build_parser, main
from tasks import warehouse

STUDY = """[study]
name = "cli"
task = "sentiment"
benchmark = "vader"
sample_size = 3
prompt_levels = ["base"]
scales = {scales}

[[judges]]
name = "{judge}"
model = "{model}"
"""


def write(tmp_path: Path, scales: str = '["likert7"]', model: str = "openai/gpt-4o-mini") -> Path:
    path = tmp_path / "cli.toml"
    path.write_text(STUDY.format(scales=scales, judge="gpt", model=model))
    return path


def error_of(capsys: pytest.CaptureFixture, argv: list[str]) -> str:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    (line,) = captured.err.splitlines()  # one line, no traceback
    return line


def test_help_lists_every_command_on_one_line(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    commands = build_parser()._subparsers._group_actions[0].choices
    assert {"run", "serve", "report", "export", "tables", "sql", "plan"} <= set(commands)
    for name in commands:
        (line,) = [ln for ln in out.splitlines() if re.match(rf"^\s+{name}\s", ln)]
        assert len(line.split(None, 1)[1]) > 20, line  # a real one-line description


def test_missing_api_key_is_named_before_anything_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("JUDGELAB_DATA_DIR", str(tmp_path / "data"))
    line = error_of(capsys, ["run", str(write(tmp_path))])
    assert "judge 'gpt' (openai/gpt-4o-mini)" in line
    assert "needs OPENAI_API_KEY" in line and ".env" in line
    assert not (tmp_path / "data").exists()  # nothing was written
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    from judgelab.cli import preflight

    preflight(str(write(tmp_path)))  # with the key set the check passes


def test_unknown_scale_suggests_the_closest(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    line = error_of(capsys, ["plan", str(write(tmp_path, '["likert7", "likret7"]', "fake/x"))])
    assert "line 7, scales: unknown scale 'likret7': did you mean 'likert7'?" in line


def test_malformed_study_file_names_the_line(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = write(tmp_path, model="fake/x")
    path.write_text(path.read_text().replace('name = "gpt"', 'name = "gpt'))
    line = error_of(capsys, ["plan", str(path)])
    assert str(path) in line and "line 10" in line
    path.write_text(
        STUDY.format(scales='["likert7"]', judge="a", model="fake/x") + "concurrency = 0\n"
    )
    line = error_of(capsys, ["plan", str(path)])
    assert "line 12, judges.0.concurrency: Input should be greater than or equal to 1" in line


def test_tables_lists_every_view_with_its_meaning(capsys: pytest.CaptureFixture) -> None:
    assert main(["tables"]) == 0
    lines = capsys.readouterr().out.splitlines()
    views = [f.stem for f in warehouse.view_files()]
    assert [ln.split()[0] for ln in lines] == views
    assert all(len(ln.split(None, 1)[1]) > 15 for ln in lines)


def test_export_writes_a_view(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    from judgelab.settings import Settings

    monkeypatch.setenv("JUDGELAB_DATA_DIR", str(tmp_path / "data"))
    warehouse.publish_views(Settings())
    out = tmp_path / "runs.csv"
    assert main(["export", "tbl_runs", "--format", "csv", "-o", str(out)]) == 0
    assert out.read_text().splitlines()[0].startswith("study,study_type,run_id,")
    assert main(["export", "tbl_nope"]) == 2


@pytest.mark.slow
def test_a_bad_input_file_inside_a_run_is_one_line(tmp_path: Path) -> None:
    """The error is raised in a Prefect task; the terminal gets our message, no traceback."""
    from judgelab.settings import PROJECT_ROOT

    (tmp_path / "mine.csv").write_text("id,sentence,valence\n1,good,4\n2,bad,nine\n")
    study = tmp_path / "mine.toml"
    study.write_text(
        STUDY.format(scales='["likert7"]', judge="a", model="fake/x").replace(
            'benchmark = "vader"', 'benchmark = "file"'
        )
        + '\n[study.data]\npath = "mine.csv"\nid_column = "id"\ntext_column = "sentence"\n'
        'mean_column = "valence"\nscale_min = 1\nscale_max = 5\n'
    )
    proc = subprocess.run(
        [sys.executable, "-m", "judgelab.cli", "run", str(study)],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "JUDGELAB_DATA_DIR": str(tmp_path / "data")},
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith("judgelab: ")  # nothing from Prefect before it
    assert "mine.csv line 3, column 'valence': 'nine' is not a number" in proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr and "ERROR" not in proc.stderr
