"""Bring your own data without traps: the docs' own-data examples (docs/how-to/own-data.md, and
the README's copy of the first) run as pasted, on files shaped like the upstream ones (HaluEval's
general_data.json with its empty and repeated IDs, Davidson et al.'s labeled_data.csv with its
unnamed index column; the texts are made up), a QA label means what the study declares
(HaluEval's `hallucination: yes/no` graded the right way round), the messages the page quotes are
the ones the loader prints, the field reference cannot drift from the models, and the recipes
produce loadable files."""

from __future__ import annotations

import csv
import json
import os
import random
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import polars as pl
import pytest
from test_flow_e2e import judgelab

from judgelab.data_specs import RatingFile
from judgelab.settings import PROJECT_ROOT, Settings
from judgelab.study import StudyError, load_study
from judgelab.study_toml import EMBEDDED_JUDGE
from tasks.benchmarks import fields, ratingfile

OWN_DATA = (PROJECT_ROOT / "docs" / "how-to" / "own-data.md").read_text()
README = (PROJECT_ROOT / "README.md").read_text()
FIELDS_PAGE = fields.PAGE.read_text()
JUDGELAB = Path(sys.executable).parent / "judgelab"


def code_blocks(text: str) -> list[tuple[str, str]]:
    """(language, body) of each fenced block of a markdown page, in order."""
    return re.findall(r"^```(\w*)\n(.*?)^```$", text, re.S | re.M)


def fenced(lang: str, marker: str, text: str = OWN_DATA) -> str:
    """The page's one ```lang block (plain ``` for "") containing `marker`, as pasted."""
    blocks = [body for info, body in code_blocks(text) if info == lang and marker in body]
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
    command runs, without paying its imports once per test): (exit code, stdout), and stderr
    after them when asked."""
    from judgelab import cli

    def run(study_file: Path, data_dir: Path, *, stderr: bool = False):
        monkeypatch.chdir(study_file.parent)
        monkeypatch.setenv("JUDGELAB_DATA_DIR", str(data_dir))
        code = cli.main(["plan", study_file.name])
        printed = capsys.readouterr()
        return (code, printed.out, printed.err) if stderr else (code, printed.out)

    return run


def calls(stdout: str, judge: str) -> tuple[int, ...]:
    """(planned, stored, missing) from the judge's row of `plan`'s table."""
    row = next(line for line in stdout.splitlines() if f" {judge} " in line)
    return tuple(int(n) for n in re.findall(r"\b\d+\b", row)[:3])


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def halueval_rows(
    n: int = 12,
    seed: int = 3,
    *,
    wrong: int | None = None,
    empty_id_line: int = 5,
    repeated_id_lines: tuple[int, int] = (8, 11),
) -> list[dict]:
    """Rows shaped like HaluEval's general_data.json (RUCAIBox/HaluEval): its five keys in its
    order, string IDs counting from "1", a span list beside a hallucinated answer, and its ID
    quirks: one empty ID and two rows whose ID is the word "ID" (lines 1975, 2059 and 2159 of
    the real file). The texts are made up. `wrong`: exactly that many "yes" labels."""
    rng = random.Random(seed)
    if wrong is None:
        labels = [rng.choice(["yes", "no", "no"]) for _ in range(n)]
    else:
        hallucinated = set(rng.sample(range(n), wrong))
        labels = ["yes" if i in hallucinated else "no" for i in range(n)]
    ids = {empty_id_line: "", **dict.fromkeys(repeated_id_lines, "ID")}
    return [
        {
            "ID": ids.get(i + 1, str(i + 1)),
            "user_query": f"Name a fruit that starts with letter number {i}.",
            "chatgpt_response": f"Fruit {i} is a pear.",
            "hallucination": label,
            "hallucination_spans": [f"Fruit {i}"] if label == "yes" else [],
        }
        for i, label in enumerate(labels)
    ]


# Davidson et al.'s labeled_data.csv (t-davidson/hate-speech-and-offensive-language): an unnamed
# index column first (pandas' to_csv), then the label counts, the majority class and the text.
DAVIDSON_HEADER = ",count,hate_speech,offensive_language,neither,class,tweet"


def write_davidson(path: Path, rows: list[tuple[int, int, int, int, str]]) -> Path:
    """labeled_data.csv as upstream writes it, from (index, hate, offensive, neither, tweet):
    `count` is their sum, `class` the majority label (0 hate speech, 1 offensive, 2 neither),
    quotes only where a field needs them, "\n" line ends."""
    with path.open("w", newline="") as f:
        f.write(DAVIDSON_HEADER + "\n")
        writer = csv.writer(f, lineterminator="\n")
        for index, hate, offensive, neither, tweet in rows:
            votes = (hate, offensive, neither)
            writer.writerow([index, sum(votes), *votes, votes.index(max(votes)), tweet])
    return path


# made-up, harmless tweets with the real file's quirks: gaps in the index, 3, 6 and 9 votes, a
# quoted text holding a line break, quotes and commas
DAVIDSON_ROWS = [
    (0, 0, 3, 0, "the bus was late again, so I walked"),
    (1, 1, 4, 1, 'my cat "helped" me fold laundry'),
    (4, 0, 0, 3, "sunny morning\nfresh bread at the bakery"),
    (17, 6, 2, 1, "RT @garden_fan: the tomatoes are finally red"),
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


# Each code block of the page, by a string only it holds → the test that runs it or compares it
# with what judgelab prints. A block added to the page without a test here fails the next test.
PAGE_BLOCKS = {
    'name = "my-valence"': "test_docs_rating_example_plans_as_pasted",
    'name = "halueval"': "test_docs_qa_example_plans_as_pasted_and_prints_the_split",
    "'hallucination': the labels": (
        "test_the_messages_the_page_quotes_are_what_a_halueval_shaped_file_gives"
    ),
    "item id 'ID' is repeated": (
        "test_the_messages_the_page_quotes_are_what_a_halueval_shaped_file_gives"
    ),
    ",count,hate_speech,": "test_the_page_shows_davidson_s_real_header",
    'write_csv("severity.csv")': "test_label_count_recipe_gives_a_mean_file",
    'path = "severity.csv"': "test_label_count_recipe_gives_a_mean_file",
    'write_csv("votes.csv")': "test_vote_recipe_gives_one_row_per_vote",
    'path = "votes.csv"': "test_vote_recipe_gives_one_row_per_vote",
    'write_csv("ratings_numbered.csv")': "test_rater_numbering_recipe_gives_a_per_rater_file",
    'path = "ratings_numbered.csv"': "test_rater_numbering_recipe_gives_a_per_rater_file",
}


def test_every_block_of_the_page_is_run_by_a_named_test() -> None:
    blocks = code_blocks(OWN_DATA)
    for info, body in blocks:
        markers = [m for m in PAGE_BLOCKS if m in body]
        assert len(markers) == 1, f"a ```{info} block matched by {markers}:\n{body[:200]}"
    assert len(blocks) == len(PAGE_BLOCKS)  # every marker still names a block
    assert all(callable(globals().get(name)) for name in PAGE_BLOCKS.values())
    # the README's own-data example is the page's (test_readme_own_data_example_is_the_docs_one)
    assert [b for info, b in code_blocks(README) if info == "toml"] == [
        fenced("toml", 'name = "my-valence"')
    ]


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
    """The empty and repeated IDs do not matter: the example numbers the items by row."""
    folder = tmp_path / "halu"
    folder.mkdir()
    rows = halueval_rows()
    assert {"", "ID"} <= {r["ID"] for r in rows}  # upstream's ID quirks are in the file
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
    from tasks.benchmarks import qafile

    ids = qafile.load(load_study(study_file).qa_data)["item_id"]  # by line, as the page says
    assert ids.to_list() == [f"general_data:{line}" for line in range(1, 13)]
    assert "`general_data:1`, `general_data:2`, …" in OWN_DATA


def quoted_message(marker: str) -> str:
    """The one judgelab message the page quotes in a plain ``` block containing `marker`."""
    (line,) = fenced("", marker).strip().splitlines()
    return line


def test_the_messages_the_page_quotes_are_what_a_halueval_shaped_file_gives(
    tmp_path: Path, plan
) -> None:
    """A file of HaluEval's size and quirks (4,507 lines, 815 hallucinated, the empty ID at line
    1975, "ID" at lines 2059 and 2159): the page's two error messages come out word for word,
    and its split line with this file's counts."""
    folder = tmp_path / "halu"
    folder.mkdir()
    rows = halueval_rows(4507, wrong=815, empty_id_line=1975, repeated_id_lines=(2059, 2159))
    write_jsonl(folder / "general_data.json", rows)
    example = fenced("toml", 'name = "halueval"')
    study_file = folder / "halueval.toml"
    data = tmp_path / "data"

    declaration = re.search(r"^reference_true = .*\n", example, re.M).group(0)
    study_file.write_text(example.replace(declaration, ""))
    code, _, err = plan(study_file, data, stderr=True)
    assert code == 2
    assert err.strip() == quoted_message("'hallucination': the labels").replace("…", str(folder))

    path_line = re.search(r"^path = .*\n", example, re.M).group(0)
    study_file.write_text(example.replace(path_line, path_line + 'id_column = "ID"\n'))
    code, _, err = plan(study_file, data, stderr=True)
    assert code == 2
    assert err.strip() == quoted_message("item id 'ID' is repeated").replace("…", str(folder))

    study_file.write_text(example)
    code, out = plan(study_file, data)
    assert code == 0
    quoted = re.search(r"`(200 items: reference .*?)`", OWN_DATA.replace("\n", " ")).group(1)
    template = re.escape(re.sub(r"TRUE \d+, FALSE \d+", "TRUE {}, FALSE {}", quoted))
    (counts,) = re.findall(template.replace(r"\{\}", r"(\d+)"), out)
    assert sum(map(int, counts)) == 200, out


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
        "general_data:1",
        "general_data:2",
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


def test_the_page_shows_davidson_s_real_header() -> None:
    assert fenced("", ",count,") == DAVIDSON_HEADER + "\n"


def _davidson_study(tmp_path: Path) -> Path:
    """labeled_data.csv shaped like Davidson et al.'s, in a folder of its own."""
    folder = tmp_path / "davidson"
    folder.mkdir()
    write_davidson(folder / "labeled_data.csv", DAVIDSON_ROWS)
    return folder


def _load_fragment(marker: str, folder: Path):
    """The page's `[study.data]` block containing `marker`, loaded from `folder`."""
    spec = tomllib.loads(fenced("toml", marker))["study"]["data"]
    return ratingfile.load(RatingFile(**spec | {"path": str(folder / spec["path"])}))


def test_label_count_recipe_gives_a_mean_file(tmp_path: Path) -> None:
    folder = _davidson_study(tmp_path)
    _run_recipe(recipe('write_csv("severity.csv")'), folder)
    items, ratings = _load_fragment('path = "severity.csv"', folder)
    assert items["item_id"].to_list() == ["severity:0", "severity:1", "severity:4", "severity:17"]
    # (2·hate + offensive) / count: 3/3; 6/6; 0/3; 14/9
    assert items["human_mean"].to_list() == pytest.approx([1.0, 1.0, 0.0, 14 / 9])
    assert items["n_raters"].to_list() == [3, 6, 3, 9]
    assert items["text"].to_list() == [row[-1] for row in DAVIDSON_ROWS]  # line break and all
    assert ratings.height == 0


def test_vote_recipe_gives_one_row_per_vote(tmp_path: Path, plan) -> None:
    folder = _davidson_study(tmp_path)
    _run_recipe(recipe('write_csv("votes.csv")'), folder)
    items, ratings = _load_fragment('path = "votes.csv"', folder)
    assert ratings.height == 3 + 6 + 3 + 9
    votes = ratings.filter(pl.col("item_id") == "votes:17").sort("rater")
    assert votes["rating"].to_list() == [2] * 6 + [1] * 2 + [0]  # 6 hate, 2 offensive, 1 neither
    assert votes["rater"].to_list() == list(range(9))  # votes 1..9, numbered from 0 on load
    means = dict(zip(items["item_id"], items["human_mean"], strict=True))
    assert means == pytest.approx(
        {"votes:0": 1.0, "votes:1": 1.0, "votes:4": 0.0, "votes:17": 14 / 9}
    )
    assert items["human_sd"].null_count() == 0  # the spread the mean file cannot give
    assert items["text"].to_list() == [row[-1] for row in DAVIDSON_ROWS]

    # "with task = toxicity": the block is the data table of a toxicity study that plans
    example = fenced("toml", 'name = "my-valence"')
    header = example[: example.index("[study.data]")].replace('"sentiment"', '"toxicity"')
    judges = example[example.index("[[judges]]") :]
    study_file = folder / "votes.toml"
    study_file.write_text(header + fenced("toml", 'path = "votes.csv"') + "\n" + judges)
    code, out = plan(study_file, tmp_path / "data")
    assert code == 0
    assert calls(out, "smollm2-135m") == (4 * 3 * 4, 0, 4 * 3 * 4), out  # items × levels × scales
    assert not [row[-1] for row in DAVIDSON_ROWS if row[-1] in out]  # no text printed


def test_rater_numbering_recipe_gives_a_per_rater_file(tmp_path: Path) -> None:
    (tmp_path / "ratings_no_ids.csv").write_text(
        "id,text,rating\n1,t1,2\n1,t1,4\n2,t2,5\n1,t1,3\n2,t2,1\n"
    )
    _run_recipe(recipe('write_csv("ratings_numbered.csv")'), tmp_path)
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
