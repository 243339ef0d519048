"""Bring your own data without traps: the docs' own-data examples (docs/how-to/own-data.md, and
the README's copy of the first) run as pasted, a QA label means what the study declares
(HaluEval's `hallucination: yes/no` graded the right way round), the field reference cannot
drift from the models, and the two recipes produce loadable files."""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from test_flow_e2e import judgelab

from judgelab.data_specs import RatingFile
from judgelab.settings import PROJECT_ROOT, Settings
from judgelab.study import EMBEDDED_JUDGE, StudyError, load_study
from tasks.benchmarks import fields, ratingfile

OWN_DATA = (PROJECT_ROOT / "docs" / "how-to" / "own-data.md").read_text()
README = (PROJECT_ROOT / "README.md").read_text()
FIELDS_PAGE = fields.PAGE.read_text()
JUDGELAB = Path(sys.executable).parent / "judgelab"


def fenced(lang: str, marker: str, text: str = OWN_DATA) -> str:
    """The page's one ```lang block containing `marker`, as pasted."""
    blocks = [b for b in re.findall(rf"```{lang}\n(.*?)```", text, re.S) if marker in b]
    assert len(blocks) == 1, (marker, len(blocks))
    return blocks[0]


def recipe(marker: str) -> str:
    """The Python of a docs recipe (`.venv/bin/python - <<'EOF' … EOF`) containing `marker`."""
    shell = fenced("sh", marker)
    return shell.split("<<'EOF'\n", 1)[1].split("\nEOF", 1)[0]


def run_cli(command: str, study_file: Path, data_dir: Path) -> subprocess.CompletedProcess:
    """`judgelab COMMAND STUDY` in the study's folder, as a user would type it."""
    return subprocess.run(
        [str(JUDGELAB), command, study_file.name],
        cwd=study_file.parent,
        env=os.environ | {"JUDGELAB_DATA_DIR": str(data_dir)},
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture
def plan(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture):
    """`judgelab plan STUDY` in the study's folder, in this process (the same `main` the
    command runs, without paying its imports once per test): (exit code, stdout)."""
    from judgelab import cli

    def run(study_file: Path, data_dir: Path) -> tuple[int, str]:
        monkeypatch.chdir(study_file.parent)
        monkeypatch.setenv("JUDGELAB_DATA_DIR", str(data_dir))
        code = cli.main(["plan", study_file.name])
        return code, capsys.readouterr().out

    return run


def calls(stdout: str, judge: str) -> tuple[int, ...]:
    """(planned, stored, missing) from the judge's row of `plan`'s table."""
    row = next(line for line in stdout.splitlines() if f" {judge} " in line)
    return tuple(int(n) for n in re.findall(r"\b\d+\b", row)[:3])


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def halueval_rows(n: int = 12, seed: int = 3) -> list[dict]:
    """HaluEval general-set shaped rows: ID, user_query, chatgpt_response, hallucination."""
    rng = random.Random(seed)
    return [
        {
            "ID": i,
            "user_query": f"Question number {i}?",
            "chatgpt_response": f"Answer {i}.",
            "hallucination": rng.choice(["yes", "no", "no"]),
        }
        for i in range(n)
    ]


# --- the field reference ------------------------------------------------------------------


def test_docs_field_table_is_the_generated_one() -> None:
    assert fields.page_block(FIELDS_PAGE) == fields.block(), (
        "docs/reference/study-file.md's data-field table is stale: "
        "run .venv/bin/python -m tasks.benchmarks.fields"
    )


def test_readme_own_data_example_is_the_docs_one() -> None:
    """The README's first own-data example is a copy of the docs' (which the tests below run)."""
    marker = 'name = "my-valence"'
    assert fenced("toml", marker, README) == fenced("toml", marker)


def test_field_table_lists_every_field_of_the_three_tables() -> None:
    table = fields.table()
    for name, model in fields.TABLES.items():
        for key in model.model_fields:
            assert f"| `[{name}]` | `{key}` |" in table
            assert model.model_fields[key].description, f"{name}.{key} has no docstring"
    assert "| `[study.data]` | `scale_min` | number | **required** |" in table
    assert '| `[study.qa_data]` | `reference_means` | `"correct"` \\| `"incorrect"` | — |' in table


# --- the docs' examples, as pasted ---------------------------------------------------------


def test_docs_rating_example_plans_as_pasted(tmp_path: Path, plan) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    rows = ["id,sentence,annotator,valence"] + [
        f"{i},sentence {i},r{rater},{1 + (i + rater) % 5}" for i in range(20) for rater in range(3)
    ]
    (folder / "my_ratings.csv").write_text("\n".join(rows) + "\n")
    study_file = folder / "my-valence.toml"
    study_file.write_text(fenced("toml", 'name = "my-valence"'))
    code, out = plan(study_file, tmp_path / "data")
    assert code == 0
    # 20 items × 3 prompt levels × 4 scales, none stored yet
    assert calls(out, "smollm2-135m") == (240, 0, 240), out


def test_docs_qa_example_plans_as_pasted_and_prints_the_split(tmp_path: Path, plan) -> None:
    folder = tmp_path / "halu"
    folder.mkdir()
    rows = halueval_rows()
    write_jsonl(folder / "general_data.json", rows)
    study_file = folder / "halueval.toml"
    study_file.write_text(fenced("toml", 'name = "halueval"'))
    code, out = plan(study_file, tmp_path / "data")
    assert code == 0
    right = sum(r["hallucination"] == "no" for r in rows)
    assert (
        f"12 items: reference (the answer is correct) TRUE {right}, FALSE {12 - right} "
        "(column 'hallucination': 'no' = correct)"
    ) in out
    assert calls(out, "smollm2-135m") == (36, 0, 36), out


def test_undeclared_yes_no_stops_with_the_values_found(tmp_path: Path) -> None:
    folder = tmp_path / "halu"
    folder.mkdir()
    rows = halueval_rows()
    write_jsonl(folder / "general_data.json", rows)
    text = fenced("toml", 'name = "halueval"')
    declaration = re.search(r"^reference_true = .*\n", text, re.M).group(0)
    study_file = folder / "halueval.toml"
    study_file.write_text(text.replace(declaration, ""))
    done = run_cli("plan", study_file, tmp_path / "data")
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    yes = sum(r["hallucination"] == "yes" for r in rows)
    assert (
        f"general_data.json, column 'hallucination': the labels 'no' ({12 - yes}), 'yes' ({yes}) "
        "do not say whether an answer is correct"
    ) in line
    assert "reference_true" in line and "reference_means" in line
    assert not (tmp_path / "data").exists()  # nothing written


def test_a_study_without_judges_prints_the_block_to_add(tmp_path: Path) -> None:
    text = fenced("toml", 'name = "my-valence"')
    without = text[: text.index("[[judges]]")]
    study_file = tmp_path / "s.toml"
    study_file.write_text(without)
    with pytest.raises(StudyError, match=r"no \[\[judges\]\] table: add one") as exc:
        load_study(study_file)
    block = str(exc.value).split("e.g.\n\n", 1)[1]
    assert block == EMBEDDED_JUDGE
    (tmp_path / "my_ratings.csv").write_text("id,sentence,annotator,valence\n")
    study_file.write_text(without + "\n" + block + "\n")  # pasted as printed, it loads
    assert [j.model for j in load_study(study_file).judges] == ["local/smollm2-135m-instruct"]


def test_a_symlink_keeps_the_name_the_user_gave(tmp_path: Path) -> None:
    """A hub-cache style link (`general_data.json` → `blobs/<sha>`, no suffix) is read by the
    link's name: its suffix decides the format, its stem names the items and the errors."""
    blobs = tmp_path / "blobs"
    blobs.mkdir()
    write_jsonl(blobs / "9f2c1e", halueval_rows(4))
    (tmp_path / "general_data.json").symlink_to(blobs / "9f2c1e")
    study_file = tmp_path / "halueval.toml"
    study_file.write_text(fenced("toml", 'name = "halueval"'))
    study = load_study(study_file)
    assert study.qa_data.path == str(tmp_path / "general_data.json")
    from tasks.benchmarks import qafile

    assert qafile.load(study.qa_data)["item_id"].to_list()[:2] == [
        "general_data:0",
        "general_data:1",
    ]
    (tmp_path / "general_data.json").unlink()
    (tmp_path / "general_data.json").symlink_to(blobs / "gone")
    with pytest.raises(Exception, match=r"general_data\.json: data file does not exist"):
        qafile.load(study.qa_data)


# --- the recipes ------------------------------------------------------------------------------


def _run_recipe(code: str, folder: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-"], input=code, cwd=folder, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr


def test_label_count_recipe_gives_a_mean_file(tmp_path: Path) -> None:
    (tmp_path / "label_counts.csv").write_text(
        "id,text,count,hate,offensive,neither\n1,t1,3,0,3,0\n2,t2,6,3,0,3\n3,t3,4,0,0,4\n"
    )
    _run_recipe(recipe("label_counts.csv"), tmp_path)
    spec = tomllib.loads(fenced("toml", 'path = "severity.csv"'))["study"]["data"]
    spec["path"] = str(tmp_path / spec["path"])
    items, ratings = ratingfile.load(RatingFile(**spec))
    assert items["human_mean"].to_list() == [1.0, 1.0, 0.0]  # 3/3 offensive; 2·3/6; 0/4
    assert items["n_raters"].to_list() == [3, 6, 4]
    assert ratings.height == 0


def test_rater_numbering_recipe_gives_a_per_rater_file(tmp_path: Path) -> None:
    (tmp_path / "ratings_no_ids.csv").write_text(
        "id,text,rating\n1,t1,2\n1,t1,4\n2,t2,5\n1,t1,3\n2,t2,1\n"
    )
    _run_recipe(recipe("ratings_no_ids.csv"), tmp_path)
    spec = tomllib.loads(fenced("toml", 'path = "ratings_numbered.csv"'))["study"]["data"]
    spec["path"] = str(tmp_path / spec["path"])
    items, ratings = ratingfile.load(RatingFile(**spec | {"text_column": "text"}))
    by_item = dict(zip(items["item_id"], items["human_mean"], strict=True))
    assert by_item == {"ratings_numbered:1": 3.0, "ratings_numbered:2": 3.0}
    assert sorted(items["n_raters"].to_list()) == [2, 3]
    assert ratings["rater"].n_unique() == 3  # positions 1..3, not people


# --- graded the right way round (a whole run) ------------------------------------------------


@pytest.mark.slow
def test_hallucination_labels_grade_correctly_end_to_end(tmp_path: Path) -> None:
    """A fake judge that says TRUE exactly when HaluEval's label is "no" is 100% accurate:
    the declared label is the truth, not its inverse. Its designs' effort label is "n/a"."""
    from tasks import warehouse
    from tasks.benchmarks.qa import qa_text

    rows = halueval_rows(16, seed=5)
    write_jsonl(tmp_path / "general_data.json", rows)
    truth = {
        qa_text(r["user_query"], r["chatgpt_response"]): float(r["hallucination"] == "no")
        for r in rows
    }
    (tmp_path / "truth.json").write_text(json.dumps(truth))
    text = fenced("toml", 'name = "halueval"')
    judge = (
        f'name = "oracle"\nmodel = "fake/planted"\nextra = {{ truth = "{tmp_path}/truth.json" }}\n'
    )
    text = text[: text.index("[[judges]]")] + "[[judges]]\n" + judge
    study_file = tmp_path / "halueval.toml"
    study_file.write_text(
        text.replace(
            'prompt_levels = ["base", "short_icl", "long_icl"]', 'prompt_levels = ["base"]'
        )
    )
    data = tmp_path / "data"
    judgelab(data, "run", str(study_file))
    got = warehouse.query(
        Settings(data_dir=data),
        "select reasoning_effort, n_scored, accuracy from stg_accuracy_metrics "
        "where subset = 'all'",
    )
    assert got.rows() == [("n/a", 16, 1.0)]


def test_effort_label_is_na_without_the_control_in_every_study_type() -> None:
    """No `reasoning_efforts` (rating studies, or an accuracy study without the factor): a
    provider without the control is labelled "n/a", as with the factor, never "default"."""
    from judgelab.study import Judge
    from tasks.judging.efforts import effort_designs

    def labels(**kw) -> list[str]:
        judge = Judge(name="j", model="local/smollm2-135m-instruct", **kw)
        return [label for label, _ in effort_designs(judge, None)]

    assert labels() == ["n/a"]
    assert labels(supports_reasoning=True) == ["default"]
    assert labels(reasoning_effort="high") == ["high"]  # the judge's own setting, as sent
