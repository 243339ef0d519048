"""Names confined: a study, judge, rewriter or prompt name that could leave `data/` is refused at
load with its line, and every path built from a name stays under its base directory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgelab.cli import main
from judgelab.names import UnsafePath, check_name, confined
from judgelab.report_cli import report_path
from judgelab.settings import PROJECT_ROOT, Settings
from judgelab.study import StudyError, load_study
from tasks import warehouse
from tasks.judging.prompts import load_template
from tasks.judging.runlock import study_lock
from tasks.tone.axes import load_axis

GOOD = ["sentiment", "gpt-4o-mini", "claude_3.5", "v1", "_empty", "a..b", "x" * 100]
BAD = [
    "../x",
    "..",
    "a/b",
    "/abs",
    ".hidden",
    "",
    "a\\b",
    "x\u2215y",  # division slash
    "x\uff0fy",  # fullwidth solidus
    "名前",
    "a b",
    "a\nb",
    "x" * 101,
]

STUDY = """[study]
name = {study}
task = {task}
benchmark = "vader"
sample_size = 3
prompt_levels = ["base", {level}]
prompt_version = {version}
scales = ["likert7"]

[[judges]]
name = "first"
model = "fake/x"

[[judges]]
name = {judge}
model = "fake/x"
"""
# the line of each placeholder in STUDY
LINES = {"study": 2, "task": 3, "level": 6, "version": 7, "judge": 15}
DEFAULTS = {
    "study": "ok",
    "task": "sentiment",
    "level": "short_icl",
    "version": "v1",
    "judge": "second",
}


def study_file(tmp_path: Path, **names: str) -> Path:
    """A study file with the given names (as TOML strings, so any character survives)."""
    values = {k: json.dumps(v) for k, v in (DEFAULTS | names).items()}
    path = tmp_path / "names.toml"
    path.write_text(STUDY.format(**values))
    return path


def listing(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


@pytest.mark.parametrize("name", GOOD)
def test_safe_names_pass(name: str) -> None:
    assert check_name(name, "judge name") == name


@pytest.mark.parametrize("name", BAD)
def test_unsafe_names_fail_naming_the_value(name: str) -> None:
    with pytest.raises(ValueError, match=r"judge name .* is not a safe name") as info:
        check_name(name, "judge name")
    assert repr(name) in str(info.value)


def test_normal_names_load(tmp_path: Path) -> None:
    study = load_study(study_file(tmp_path, study="gpt-4o-mini", judge="claude_3.5", version="v1"))
    assert (study.name, study.judges[1].name) == ("gpt-4o-mini", "claude_3.5")


@pytest.mark.parametrize("field", sorted(LINES))
@pytest.mark.parametrize("name", BAD)
def test_an_unsafe_name_is_refused_at_load_with_its_line(
    tmp_path: Path, field: str, name: str
) -> None:
    path = study_file(tmp_path, **{field: name})
    loc = {"study": "name", "task": "task", "level": "prompt_levels"}.get(field, field)
    loc = {"version": "prompt_version", "judge": "judges.1.name"}.get(field, loc)
    with pytest.raises(StudyError) as info:
        load_study(path)
    message = str(info.value)
    assert f"line {LINES[field]}, {loc}: " in message
    assert "is not a safe name" in message and repr(name) in message


def test_the_rewriter_and_tone_axes_are_checked_too(tmp_path: Path) -> None:
    text = (PROJECT_ROOT / "studies" / "tone.toml").read_text()
    lines = text.splitlines()
    rewriter = lines.index('name = "smollm2-rewriter"') + 1
    axes = next(i for i, ln in enumerate(lines, 1) if ln.startswith("axes ="))
    path = tmp_path / "tone.toml"
    path.write_text(
        text.replace('name = "smollm2-rewriter"', 'name = "../rw"').replace(
            'axes = ["confidence"]', 'axes = ["confidence", "../../etc"]'
        )
    )
    with pytest.raises(StudyError) as info:
        load_study(path)
    message = str(info.value)
    assert f"line {rewriter}, rewriter.name: judge name '../rw' is not a safe name" in message
    assert f"line {axes}, tone.axes: axis '../../etc' is not a safe name" in message


@pytest.mark.parametrize("bad", ["..", "../x", "/etc/passwd", "a/b", "x\u2215y", ".x", ""])
def test_table_file_refuses_parts_that_leave_the_warehouse(settings: Settings, bad: str) -> None:
    assert warehouse.table_file(settings, "plan", "ok") == (
        settings.warehouse_dir / "plan" / "ok.parquet"
    )
    with pytest.raises(UnsafePath, match="not a safe name"):
        warehouse.table_file(settings, "plan", bad)
    with pytest.raises(UnsafePath, match="not a safe name"):
        warehouse.table_file(settings, bad, "ok")


def test_a_symlink_out_of_the_warehouse_is_refused(settings: Settings, tmp_path: Path) -> None:
    """Checked after resolving: a table folder that links elsewhere is not written through."""
    outside = tmp_path / "outside"
    outside.mkdir()
    settings.warehouse_dir.mkdir(parents=True)
    (settings.warehouse_dir / "plan").symlink_to(outside)
    with pytest.raises(UnsafePath, match="outside"):
        warehouse.table_file(settings, "plan", "ok")
    assert list(outside.iterdir()) == []


def test_confined_refuses_the_base_itself_and_accepts_nested_names(tmp_path: Path) -> None:
    assert confined(tmp_path, "a", "b.parquet") == tmp_path / "a" / "b.parquet"
    with pytest.raises(UnsafePath):
        confined(tmp_path)


def test_lock_prompt_and_axis_paths_are_confined(tmp_path: Path) -> None:
    locks = tmp_path / "locks"
    with pytest.raises(UnsafePath), study_lock(locks, "../x"):
        pass
    assert not locks.exists() and listing(tmp_path) == set()  # refused before any mkdir
    with study_lock(locks, "ok"):
        assert listing(tmp_path) == {"locks", "locks/ok.lock"}
    with pytest.raises(UnsafePath):
        load_template("../sentiment", "base")
    with pytest.raises(UnsafePath):
        load_template("sentiment", "base", "v1/../../x")
    with pytest.raises(UnsafePath):
        load_axis("../confidence")
    assert load_template("sentiment", "base").level == "base"


def test_the_default_report_path_stays_in_data_reports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "data"
    monkeypatch.setenv("JUDGELAB_DATA_DIR", str(data))
    assert report_path("studies/my study.toml") == data / "reports" / "my study.html"
    (data / "reports").mkdir(parents=True)
    (data / "reports" / "x.html").symlink_to(tmp_path / "elsewhere.html")  # a planted link
    with pytest.raises(UnsafePath, match="outside"):
        report_path("x.toml")


@pytest.mark.parametrize("command", ["plan", "run", "power", "report"])
@pytest.mark.parametrize("name", ["../escaped", "../../../escaped", "a/b", "x\uff0fy"])
def test_an_escaping_study_name_writes_nothing_anywhere(
    tmp_path: Path,
    capsys: pytest.CaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    command: str,
    name: str,
) -> None:
    """The data dir sits three folders deep, so an escape would land inside tmp_path."""
    data = tmp_path / "a" / "b" / "data"
    data.mkdir(parents=True)
    monkeypatch.setenv("JUDGELAB_DATA_DIR", str(data))
    monkeypatch.chdir(tmp_path)
    path = study_file(tmp_path, study=name)
    before = listing(tmp_path)
    assert main([command, str(path)]) == 2
    captured = capsys.readouterr()
    (line,) = captured.err.splitlines()  # one line, no traceback
    assert line.startswith("judgelab: ") and "line 2, name: study name" in line
    assert listing(tmp_path) == before
