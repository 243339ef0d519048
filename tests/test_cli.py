"""The command line: one line of help per command, and errors that are one sentence with the
fix (missing API key, unknown scale, malformed study file with its line)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from judgelab.arguments import build_parser
from judgelab.cli import main
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
    from judgelab.preflight import preflight

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


# `tables`, `show`, `sql` errors and help examples: tests/test_cli_show.py


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


# ---- `judgelab power` and the power line of `judgelab plan` ----------------------------------

Z95 = 1.959963984540054  # the normal 97.5% quantile


def _pilot(n_items: int = 40) -> pl.DataFrame:
    """Stored pilot item_scores of the "cli" study: three designs of one judge on 1–7."""
    import numpy as np

    rng = np.random.default_rng(0)
    human = np.clip(rng.normal(4, 1.2, n_items), 1, 7)
    frames = [
        pl.DataFrame(
            {
                "study": "cli",
                "kind": "judge",
                "judge": "gpt",
                "model": "fake/x",
                "prompt_level": "base",
                "scale": scale,
                "item_id": [str(k) for k in range(n_items)],
                "n_ok": pl.Series([1] * n_items, dtype=pl.Int64),
                "score_1to7": np.clip(human + rng.normal(bias, sd, n_items), 1, 7),
                "score_sd": pl.Series([None] * n_items, dtype=pl.Float64),
                "human_1to7": human,
            }
        )
        for scale, bias, sd in [("likert7", 0.2, 0.6), ("bipolar3", -0.1, 1.1), ("slider", 0, 0.7)]
    ]
    return pl.concat(frames)


def _n_bias(frame: pl.DataFrame) -> int:
    """Items for a ±0.1 bias CI: ceil((z·sd/0.1)²), sd of judge − human with ddof 1."""
    sd = (frame["score_1to7"] - frame["human_1to7"]).std()
    return int(-(-((Z95 * sd / 0.1) ** 2) // 1))


def test_power_without_pilot_data_uses_the_stated_assumptions(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tasks import power

    monkeypatch.setenv("JUDGELAB_DATA_DIR", str(tmp_path / "data"))
    path = write(tmp_path, model="fake/x")
    assert main(["power", str(path), "--sd", "1.0", "--diff-sd", "0.6", "--bias-hw", "0.1"]) == 0
    out = capsys.readouterr().out
    assert "assumed: sd 1, bias 0.2, α 0.85, difference sd 0.6" in out
    assert f"(a) 95% CI ±0.1 on bias: {int(-(-((Z95 * 1.0 / 0.1) ** 2) // 1)):,} items" in out
    assert "(b) 80% power to detect a 0.2 difference between two designs (paired t" in out
    assert f"two-sided 5%): {power.n_for_power(0.2, 0.6):,} items" in out
    assert "(c) 80% power to show equivalence within ±0.2 (TOST" in out
    assert f"true difference 0): {power.n_for_tost(0.6, 0.2):,} items" in out
    assert f"planned: n = 3 items: bias CI ±{Z95 / 3**0.5:.2f}, 80% power for a " in out


def test_power_with_pilot_data_sizes_every_design(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGELAB_DATA_DIR", str(tmp_path / "data"))
    from judgelab.settings import Settings
    from tasks import power

    pilot = _pilot()
    warehouse.write_table(Settings(), pilot, "item_scores", "cli")
    path = write(tmp_path, model="fake/x")
    assert main(["power", str(path), "--sd", "9"]) == 0  # a pilot beats stated assumptions
    out = capsys.readouterr().out
    assert "pilot: 40 items, 3 designs, 3 pairs (stated sd ignored; --assume uses them)" in out
    assert "assumed" not in out
    scales = ("bipolar3", "likert7", "slider")
    needed = {s: _n_bias(pilot.filter(pl.col("scale") == s)) for s in scales}
    worst = max(needed, key=needed.get)
    mid = sorted(needed.values())[1]
    assert f"on bias: median {mid:,}, worst {needed[worst]:,} items (gpt·base·{worst})" in out
    wide = pilot.pivot(on="scale", index="item_id", values="score_1to7")
    pairs = {
        (a, b): power.n_for_power(0.2, (wide[a] - wide[b]).std())
        for a, b in [("bipolar3", "likert7"), ("bipolar3", "slider"), ("likert7", "slider")]
    }
    (a, b), most = max(pairs.items(), key=lambda kv: kv[1])
    mid = sorted(pairs.values())[1]
    assert (
        f"(paired t, two-sided 5%): median {mid:,}, worst {most:,} items (gpt·base·{a} vs "
        f"gpt·base·{b})"
    ) in out
    assert "(pilot: 40 items" in out.splitlines()[-2]  # the planned-n verdict
    assert main(["power", str(path), "--assume"]) == 0
    assert "assumed: sd 0.8" in capsys.readouterr().out


def test_power_covers_accuracy_and_says_tone_is_not_covered(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    from judgelab.settings import PROJECT_ROOT

    monkeypatch.setenv("JUDGELAB_DATA_DIR", str(tmp_path / "data"))
    accuracy = str(PROJECT_ROOT / "studies" / "accuracy.toml")
    assert main(["power", accuracy, "--sample-size", "120", "--accuracy", "0.8"]) == 0
    out = capsys.readouterr().out
    assert "assumed: accuracy 0.8, 20% of items discordant between two designs" in out
    assert "(b) 80% power to detect a 5 pp difference between two designs (McNemar" in out
    assert f"planned: n = 120 items: accuracy CI ±{100 * Z95 * 0.4 / 120**0.5:.1f} pp, " in out
    assert main(["power", str(PROJECT_ROOT / "studies" / "tone.toml")]) == 0
    assert "not covered: the power planner covers rating and accuracy" in capsys.readouterr().out


def test_plan_prints_the_power_line_for_the_planned_sample(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGELAB_DATA_DIR", str(tmp_path / "data"))
    from judgelab.settings import Settings

    rows = "".join(f"{k},text number {k},{k % 5 + 1}\n" for k in range(1, 13))
    (tmp_path / "mine.csv").write_text("id,sentence,valence\n" + rows)
    study = tmp_path / "mine.toml"
    study.write_text(
        STUDY.format(scales='["likert7"]', judge="gpt", model="fake/x")
        .replace('benchmark = "vader"', 'benchmark = "file"')
        .replace("sample_size = 3", "sample_size = 10")
        + '\n[study.data]\npath = "mine.csv"\nid_column = "id"\ntext_column = "sentence"\n'
        'mean_column = "valence"\nscale_min = 1\nscale_max = 5\n'
    )
    assert main(["plan", str(study)]) == 0
    line = capsys.readouterr().out.splitlines()[-1]
    assert line.startswith(f"power: n = 10 items: bias CI ±{Z95 * 0.8 / 10**0.5:.2f}, 80% power")
    assert line.endswith("(assumed: sd 0.8, bias 0.2, α 0.85, difference sd 0.5)")
    pilot = _pilot()
    warehouse.write_table(Settings(), pilot, "item_scores", "cli")
    assert main(["plan", str(study), "--sample-size", "8"]) == 0
    line = capsys.readouterr().out.splitlines()[-1]
    sds = sorted((g["score_1to7"] - g["human_1to7"]).std() for _, g in pilot.group_by("scale"))
    assert line.startswith(f"power: n = 8 items: bias CI ±{Z95 * sds[1] / 8**0.5:.2f}, ")
    assert line.endswith("(pilot: 40 items, 3 designs, 3 pairs; median design and pair)")


def test_plan_takes_a_suite_file_printing_each_study_and_the_totals(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`judgelab plan studies/all.toml` (a suite) plans every study it lists, under its file's
    name, then the suite's totals: the sums of the studies' own counts."""
    monkeypatch.setenv("JUDGELAB_DATA_DIR", str(tmp_path / "data"))
    rows = "".join(f"{k},text number {k},{k % 5 + 1}\n" for k in range(1, 13))
    (tmp_path / "mine.csv").write_text("id,sentence,valence\n" + rows)
    data = (
        '\n[study.data]\npath = "mine.csv"\nid_column = "id"\ntext_column = "sentence"\n'
        'mean_column = "valence"\nscale_min = 1\nscale_max = 5\n'
    )
    for name, n, scales in [("one", 4, '["likert7"]'), ("two", 6, '["likert7", "pct100"]')]:
        text = STUDY.format(scales=scales, judge="gpt", model="fake/x")
        text = text.replace('name = "cli"', f'name = "{name}"')
        text = text.replace('benchmark = "vader"', 'benchmark = "file"')
        (tmp_path / f"{name}.toml").write_text(
            text.replace("sample_size = 3", f"sample_size = {n}") + data
        )
    suite = tmp_path / "both.toml"
    suite.write_text('[suite]\nstudies = ["one.toml", "two.toml"]\n')
    assert main(["plan", str(suite)]) == 0
    out = capsys.readouterr().out
    assert out.index(f"== {tmp_path / 'one.toml'} ==") < out.index(f"== {tmp_path / 'two.toml'} ==")
    # 4 items × 1 scale + 6 items × 2 scales, nothing stored yet
    assert out.rstrip().endswith(
        f"suite {suite}: 2 studies, 16 calls planned, 0 stored, 16 missing"
    ), out[-300:]
