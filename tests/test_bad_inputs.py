"""Bad inputs fail at load: `judgelab run BAD.toml` exits 2 with one line naming the file and
the line, row or column, before any Prefect server starts and before anything is written.
(bench/bench_bad_inputs.py prints how long each case takes.)"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl
import pytest

JUDGELAB = Path(sys.executable).parent / "judgelab"

STUDY = """[study]
name = "bad"
task = "sentiment"
benchmark = "file"
sample_size = 2
prompt_levels = ["base"]
scales = ["likert7"]

[study.data]
path = "ratings.csv"
mean_column = "mean"
scale_min = 1
scale_max = 7

[[judges]]
name = "a"
model = "local/smollm2-135m-instruct"
"""
GOOD_CSV = "item_id,text,mean\n1,good day,5\n2,bad day,2\n"

QA_STUDY = """[study]
name = "badqa"
type = "accuracy"
task = "accuracy"
benchmark = "file"
sample_size = 2
prompt_levels = ["base"]
scales = ["verdict"]

[study.qa_data]
path = "qa.csv"

[[judges]]
name = "a"
model = "local/smollm2-135m-instruct"
"""
QA_CSV = "question,answer\nWhat is 2+2?,4\nCapital of France?,Lyon\n"


@dataclass
class Case:
    """A study file (and its data files) and what the one error line must contain."""

    study: str | bytes
    expect: list[str]
    files: dict[str, str | bytes] = field(default_factory=lambda: {"ratings.csv": GOOD_CSV})
    parquet: pl.DataFrame | None = None


def study(old: str, new: str) -> str:
    assert old in STUDY, old
    return STUDY.replace(old, new)


CASES = {
    "typo key in [study]": Case(
        study("sample_size = 2", "sample_szie = 2"),
        ["bad.toml", "line 5, sample_szie: unknown key", "did you mean 'sample_size'?"],
    ),
    "typo key in [[judges]]": Case(
        STUDY + "temprature = 0.5\n",
        ["bad.toml", "line 18, judges.0.temprature", "did you mean 'temperature'?"],
    ),
    "[rewritter]": Case(
        STUDY + '\n[rewritter]\nname = "r"\nmodel = "local/smollm2-135m-instruct"\n',
        ["bad.toml", "line 19, [rewritter]: unknown table", "did you mean 'rewriter'?"],
    ),
    "[study.analysys]": Case(
        STUDY + "\n[study.analysys]\nbootstrap = 10\n",
        ["bad.toml", "line 19, analysys: unknown key", "did you mean 'analysis'?"],
    ),
    "unknown scale": Case(
        study('["likert7"]', '["likert8"]'),
        ["bad.toml", "line 7, scales", "unknown scale 'likert8'", "did you mean"],
    ),
    "unknown prompt level": Case(
        study('["base"]', '["bsae"]'),
        ["bad.toml", "line 6, prompt_levels", "'bsae'", "did you mean 'base'?"],
    ),
    "unknown task": Case(
        study('task = "sentiment"', 'task = "sentimnet"'),
        ["bad.toml", "line 3, task: unknown task 'sentimnet'", "did you mean 'sentiment'?"],
    ),
    "negative sample": Case(
        study("sample_size = 2", "sample_size = -1"),
        ["bad.toml", "line 5, sample_size", "greater than or equal to 0"],
    ),
    "judge without model": Case(
        study('model = "local/smollm2-135m-instruct"\n', ""),
        ["bad.toml", "line 15, judges.0.model: Field required"],
    ),
    "duplicate judges": Case(
        STUDY + '\n[[judges]]\nname = "a"\nmodel = "local/smollm2-135m-instruct"\n',
        ["bad.toml", "line 20, judges.1.name", "'a'", "unique"],
    ),
    "[[judge]]": Case(
        study("[[judges]]", "[[judge]]"),
        ["bad.toml", "line 15, [judge]: unknown table", "did you mean 'judges'?"],
    ),
    "missing column": Case(
        STUDY,
        ["ratings.csv", "missing column(s) ['mean']"],
        {"ratings.csv": "item_id,text\n1,good day\n"},
    ),
    "non-numeric value": Case(
        STUDY,
        ["ratings.csv line 3, column 'mean'", "'high' is not a number"],
        {"ratings.csv": "item_id,text,mean\n1,good day,5\n2,bad day,high\n"},
    ),
    "out-of-range value": Case(
        STUDY,
        ["ratings.csv line 3, column 'mean'", "outside the scale [1, 7]"],
        {"ratings.csv": "item_id,text,mean\n1,good day,5\n2,bad day,9\n"},
    ),
    "empty value": Case(
        STUDY,
        ["ratings.csv line 2, column 'mean'", "empty, expected a number"],
        {"ratings.csv": "item_id,text,mean\n1,good day,\n2,bad day,2\n"},
    ),
    "duplicate ids": Case(
        STUDY,
        ["ratings.csv line 2, line 3, column 'item_id'", "item id '1' is repeated"],
        {"ratings.csv": "item_id,text,mean\n1,good day,5\n1,bad day,2\n"},
    ),
    "latin-1 file": Case(
        STUDY,
        ["ratings.csv line 3", "not UTF-8"],
        {"ratings.csv": "item_id,text,mean\n1,good day,5\n2,café,2\n".encode("latin-1")},
    ),
    "empty file": Case(STUDY, ["ratings.csv", "empty file"], {"ratings.csv": ""}),
    "ragged CSV": Case(
        STUDY,
        ["ratings.csv line 3", "4 field(s), the header has 3"],
        {"ratings.csv": "item_id,text,mean\n1,good day,5\n2,bad,day,2\n"},
    ),
    "wrong Parquet types": Case(
        study('"ratings.csv"', '"ratings.parquet"'),
        ["ratings.parquet", "column 'text'", "holds no text or number"],
        {},
        pl.DataFrame({"item_id": [1, 2], "text": [["a"], ["b"]], "mean": [5.0, 2.0]}),
    ),
    "QA without labels": Case(
        QA_STUDY,
        ["bad.toml", "line 10, qa_data", 'truth = "reference"', "reference_column"],
        {"qa.csv": QA_CSV},
    ),
    "QA yes/no labels, meaning undeclared": Case(
        QA_STUDY.replace('path = "qa.csv"', 'path = "qa.csv"\nreference_column = "ok"'),
        ["qa.csv, column 'ok'", "the labels 'no' (2), 'yes' (1) do not say", "reference_true"],
        {"qa.csv": "question,answer,ok\nA?,a,no\nB?,b,yes\nC?,c,No\n"},
    ),
    "JSON array in a .json file": Case(
        study('"ratings.csv"', '"ratings.json"'),
        ["ratings.json", "holds a JSON array", "jq -c"],
        {"ratings.json": '[{"item_id": 1, "text": "good day", "mean": 5}]'},
    ),
    "missing file": Case(study('"ratings.csv"', '"nope.csv"'), ["nope.csv", "does not exist"], {}),
    "bad name": Case(
        study('name = "bad"', 'name = "../x"'),
        ["bad.toml", "line 2, name", "'../x' is not a safe name"],
    ),
    "no prompt levels": Case(
        study('["base"]', "[]"), ["bad.toml", "line 6, prompt_levels", "at least 1 item"]
    ),
    "no scales": Case(
        study('["likert7"]', "[]"), ["bad.toml", "line 7, scales", "at least 1 item"]
    ),
    "unknown provider": Case(
        study("local/smollm2-135m-instruct", "nosuchprov/foo"),
        ["bad.toml", "judge 'a'", "no provider for model 'nosuchprov/foo'", "<provider>/<model>"],
    ),
    "bare unknown model": Case(
        study("local/smollm2-135m-instruct", "foo"),
        ["bad.toml", "judge 'a'", "no provider for model 'foo'"],
    ),
    "latin-1 study file": Case(
        study('name = "bad"', 'name = "bad" # café').encode("latin-1"),
        ["bad.toml", "line 2", "not UTF-8 (byte 0xe9)"],
    ),
}


def write_case(case: Case, folder: Path) -> Path:
    """The case's study file and data files in `folder`; returns the study file."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, content in case.files.items():
        target = folder / name
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content)
    if case.parquet is not None:
        case.parquet.write_parquet(folder / "ratings.parquet")
    path = folder / "bad.toml"
    if isinstance(case.study, bytes):
        path.write_bytes(case.study)
    else:
        path.write_text(case.study)
    return path


def run_cli(command: str, study_file: Path, data_dir: Path) -> subprocess.CompletedProcess:
    """`judgelab COMMAND STUDY` in the study's folder (no .env) with its own data directory."""
    env = os.environ | {"JUDGELAB_DATA_DIR": str(data_dir)}
    return subprocess.run(
        [str(JUDGELAB), command, str(study_file)],
        cwd=study_file.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_there_are_30_cases() -> None:
    assert len(CASES) == 30


@pytest.mark.parametrize("name", list(CASES))
def test_bad_input_fails_at_load_with_one_line(name: str, tmp_path: Path) -> None:
    study_file = write_case(CASES[name], tmp_path / "study")
    data_dir = tmp_path / "data"
    done = run_cli("run", study_file, data_dir)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    (line,) = done.stderr.splitlines()  # one line, no traceback, no Prefect log
    assert line.startswith("judgelab: ")
    for part in CASES[name].expect:
        assert part in line, line
    assert not data_dir.exists()  # nothing written


def test_plan_checks_the_data_file_before_loading_anything(tmp_path: Path) -> None:
    study_file = write_case(CASES["out-of-range value"], tmp_path / "study")
    done = run_cli("plan", study_file, tmp_path / "data")
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert "ratings.csv line 3, column 'mean'" in line
    assert not (tmp_path / "data").exists()


def test_a_good_file_passes_the_check(tmp_path: Path) -> None:
    """The same study with its good data file gets past the check (to the missing labels of
    a QA file only when truth is "reference")."""
    from judgelab.check import check_study
    from judgelab.study import load_study

    path = write_case(Case(STUDY, []), tmp_path)
    check_study(path, load_study(path))
    qa = write_case(
        Case(QA_STUDY + '\n[study.analysis]\ntruth = "consensus"\n', [], {"qa.csv": QA_CSV}),
        tmp_path / "qa",
    )
    check_study(qa, load_study(qa))


def test_a_label_column_without_labels_fails_under_reference_truth(tmp_path: Path) -> None:
    from judgelab.check import check_study
    from judgelab.study import load_study
    from schemas.validate import TableError

    text = QA_STUDY.replace('path = "qa.csv"', 'path = "qa.csv"\nreference_column = "ok"')
    qa = write_case(Case(text, [], {"qa.csv": "question,answer,ok\nA?,a,\nB?,b, \n"}), tmp_path)
    with pytest.raises(TableError, match="column 'ok': no row holds a reference label"):
        check_study(qa, load_study(qa))


def test_a_directory_as_study_file_fails_in_one_line(tmp_path: Path) -> None:
    done = run_cli("run", tmp_path, tmp_path / "data")
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert line == f"judgelab: {tmp_path} is a directory, not a study file (.toml)"


def test_a_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    """A BOM-prefixed study file (Windows editors) parses: its real mistake is found, at its
    own line, instead of "Invalid statement (line 1, column 1)"."""
    case = CASES["typo key in [study]"]
    study_file = write_case(case, tmp_path / "study")
    study_file.write_bytes(b"\xef\xbb\xbf" + study_file.read_bytes())
    done = run_cli("run", study_file, tmp_path / "data")
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert "line 5, sample_szie: unknown key" in line


def test_a_sample_larger_than_the_data_is_a_note_with_the_real_n(tmp_path: Path) -> None:
    from judgelab.check import check_study
    from judgelab.study import load_study

    path = write_case(Case(study("sample_size = 2", "sample_size = 1000000000000"), []), tmp_path)
    notes = check_study(path, load_study(path))
    assert notes == [
        f"{path}: sample_size = 1000000000000 is more than the data file's 2 items: "
        "the study uses all 2"
    ]
    assert check_study(path, load_study(path, sample_size=2)) == []
