"""The checks at load of `[[imports]]` (judgelab check_study, as `judgelab run` and `check`
run it): each bad file or mapping fails in one line naming file, row and field, in well
under 2 s, writing nothing; LLMBar's result.json layout maps through paths, a file pattern,
record indexes, both orders per record and compared ratings; old store parts read as calls."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from pathlib import Path

import polars as pl
import pytest
from importstudy import LIVE, STUDY, VERDICTS, write_study

from judgelab.check import check_study
from judgelab.settings import Settings
from judgelab.study import StudyError, load_study
from schemas.validate import TableError
from tasks.imports import paths
from tasks.imports.load import imported
from tasks.judging import store

IMPORT = STUDY[STUDY.index("[[imports]]") :]
CASES = {
    "unknown answer label": (
        {"verdicts.csv": VERDICTS.replace("gpt,plain,1,a,1", "gpt,plain,1,a,3")},
        None,
        "verdicts.csv row 1, field 'verdict': '3' is not a label of imports.answer",
    ),
    "order neither first nor second": (
        {"verdicts.csv": VERDICTS.replace("claude,strict,2,a,2", "claude,strict,2,c,2")},
        None,
        "verdicts.csv row 9, field 'shown_first': 'c' is not a label of imports.order",
    ),
    "duplicate key, other answer": (
        {"verdicts.csv": VERDICTS + "gpt,plain,1,a,2\n"},
        None,
        "verdicts.csv row 1, field 'verdict': a second answer to judge 'gpt'",
    ),
    "item not in the study": (
        {"verdicts.csv": VERDICTS.replace("gpt,strict,1,b,2", "gpt,strict,9,b,2")},
        None,
        "verdicts.csv row 6, field 'item': item 'pairs:9' is not one of the study's items",
    ),
    "missing field": (
        {},
        (IMPORT, IMPORT.replace('field = "verdict"', 'field = "verdit"')),
        "verdicts.csv, field 'verdit': no such column",
    ),
    "unreadable file": (
        {"verdicts.jsonl": '{"evaluator": "gpt"}\n{"evaluator": \n'},
        (IMPORT, IMPORT.replace('"verdicts.csv"', '"verdicts.jsonl"')),
        "verdicts.jsonl line 2: not JSON",
    ),
    "bad format": (
        {"verdicts.xml": "<verdicts/>"},
        (IMPORT, IMPORT.replace('"verdicts.csv"', '"verdicts.xml"')),
        "verdicts.xml: cannot tell the format from '.xml'",
    ),
    "empty file": ({"verdicts.csv": ""}, None, "verdicts.csv: the file is empty"),
    "pattern does not match": (
        {},
        (IMPORT, IMPORT.replace("[[imports]]\n", '[[imports]]\npattern = "{judge}/result.csv"\n')),
        "verdicts.csv: the path does not match pattern '{judge}/result.csv'",
    ),
    "imported judge named like a live judge": (
        {},
        (STUDY, STUDY + LIVE.replace('"live"', '"claude"')),
        "verdicts.csv row 7, field 'judge': imported judge 'claude' has the name of a live",
    ),
    "a record without a value": (
        {"verdicts.csv": VERDICTS.replace("gpt,plain,2,b,2", "gpt,plain,2,b,")},
        None,
        "verdicts.csv row 4, field 'verdict': no value (imports.answer)",
    ),
}


@pytest.fixture(scope="module", autouse=True)
def warm() -> None:
    """Modules loaded once (pandera, the loaders): the 2 s are the check's, not imports'."""
    import tasks.benchmarks.pairfile
    import tasks.pairwise.imports  # noqa: F401


@pytest.mark.parametrize("case", list(CASES))
def test_a_bad_import_fails_at_load_in_one_line_writing_nothing(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files, change, expected = CASES[case]
    data = tmp_path / "data"
    monkeypatch.setenv("JUDGELAB_DATA_DIR", str(data))
    study_file = write_study(tmp_path / "study")
    for name, text in files.items():
        (study_file.parent / name).write_text(text)
    if change is not None:
        study_file.write_text(study_file.read_text().replace(*change))
    before = sorted(p.name for p in study_file.parent.iterdir())
    started = time.perf_counter()
    with pytest.raises(TableError) as err:
        check_study(study_file, load_study(study_file))
    assert time.perf_counter() - started < 2
    message = str(err.value)
    assert "\n" not in message and expected in message, message
    assert not data.exists() and sorted(p.name for p in study_file.parent.iterdir()) == before


def test_a_constant_judge_name_of_a_live_judge_fails_at_the_study_file(tmp_path: Path) -> None:
    study_file = write_study(tmp_path)
    text = study_file.read_text().replace('judge = { field = "evaluator" }', 'judge = "live"')
    study_file.write_text(text + LIVE)
    with pytest.raises(StudyError, match="imported judge 'live' has the name of a live judge"):
        load_study(study_file)


def test_paths_read_nested_json_fields() -> None:
    steps = paths.parse('results[0]["swap = True"].winner')
    assert steps == ("results", 0, "swap = True", "winner")
    record = {"results": [{"swap = True": {"winner": 2}}]}
    assert paths.text(paths.get(record, steps)) == "2"
    assert paths.get(record, paths.parse("results[1].winner")) is paths.MISSING
    assert paths.parse("score_1[0]") == ("score_1", 0)


LLMBAR = """
[[imports]]
files = "evaluators/*/Vanilla/result.json"
pattern = "evaluators/{judge}/{prompt_level}/result.json"
judge = "{judge}"
model = "llmbar/{judge}"
prompt_level = "{prompt_level}"
item = "llmbar:natural:{index}"

[[imports.rows]]
order = "ab"
answer = { field = 'results[0]["swap = False"].winner', labels = { "1" = "a", "2" = "b" } }
raw = { field = 'results[0]["swap = False"].completion[0]' }

[[imports.rows]]
order = "ba"
answer = { field = 'results[0]["swap = True"].winner', labels = { "1" = "a", "2" = "b" } }
raw = { field = 'results[0]["swap = True"].completion[0]' }

[[imports]]
files = "evaluators/*/Rating/result.json"
pattern = "evaluators/{judge}/{prompt_level}/result.json"
judge = "{judge}"
model = "llmbar/{judge}"
prompt_level = "{prompt_level}"
item = "llmbar:natural:{index}"

[[imports.rows]]
order = "ab"
answer = { compare = ["results[0].score_1[0]", "results[0].score_2[0]"] }

[[imports.rows]]
order = "ba"
answer = { compare = ["results[0].score_1[0]", "results[0].score_2[0]"] }
"""


def _vanilla(swap_false: str, swap_true: str) -> dict:
    return {
        "input": "q",
        "output_1": "x",
        "output_2": "y",
        "label": 1,
        "results": [
            {
                "swap = False": {"completion": [f"Output ({'ab'[int(swap_false) - 1]})", "stop"]}
                | {"winner": swap_false},
                "swap = True": {"completion": ["Output (b)", "stop"], "winner": swap_true},
            }
        ],
    }


def _rating(one: str, two: str) -> dict:
    return {"input": "q", "results": [{"score_1": [one, "stop"], "score_2": [two, "stop"]}]}


def test_llmbar_result_files_map_through_paths_patterns_and_compared_ratings(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "study"
    study_file = write_study(folder)
    study_file.write_text(STUDY[: STUDY.index("[[imports]]")] + LLMBAR)
    for judge in ("GPT-4", "Falcon"):
        (folder / f"evaluators/{judge}/Vanilla").mkdir(parents=True)
        (folder / f"evaluators/{judge}/Rating").mkdir(parents=True)
        vanilla = [_vanilla("1", "1"), _vanilla("2", "1")]
        (folder / f"evaluators/{judge}/Vanilla/result.json").write_text(json.dumps(vanilla))
        ratings = [_rating("6", "1"), _rating("3", "3")]
        (folder / f"evaluators/{judge}/Rating/result.json").write_text(json.dumps(ratings))
    items = {f"llmbar:natural:{i}" for i in range(5)}
    rows = imported(load_study(study_file), Settings(data_dir=tmp_path / "data"), items)
    assert rows.height == 2 * 2 * 2 * 2  # judges × strategies × records × orders
    gpt = rows.filter(pl.col("judge") == "GPT-4").sort("prompt_level", "item_id")
    assert gpt.select("prompt_level", "item_id", "score", "raw").rows() == [
        ("Rating", "llmbar:natural:0#ab", 0.0, None),  # 6 > 1: a wins, shown first: A
        ("Rating", "llmbar:natural:0#ba", 1.0, None),  # a shown second: B
        ("Rating", "llmbar:natural:1#ab", 2.0, None),  # 3 = 3: tie
        ("Rating", "llmbar:natural:1#ba", 2.0, None),
        ("Vanilla", "llmbar:natural:0#ab", 0.0, "Output (a)"),
        ("Vanilla", "llmbar:natural:0#ba", 1.0, "Output (b)"),
        ("Vanilla", "llmbar:natural:1#ab", 1.0, "Output (b)"),  # b wins, shown second
        ("Vanilla", "llmbar:natural:1#ba", 1.0, "Output (b)"),  # a wins, shown second
    ]
    assert set(gpt["source_row"]) == {1, 2} and gpt["key"].n_unique() == 8


def test_store_parts_written_before_imports_read_as_calls(tmp_path: Path) -> None:
    old = {c: t for c, t in store.SCHEMA.items() if not c.startswith("source")}
    row = {
        "key": "k" * 64,
        "model": "m",
        "status": "ok",
        "score": 1.0,
        "answers": "[]",
        "attempts": 1,
        "latency_s": 0.1,
        "run_id": "r",
        "created_at": datetime(2026, 1, 1, tzinfo=UTC),
    }
    part = tmp_path / "store" / "part-old.parquet"
    part.parent.mkdir()
    pl.DataFrame([row], schema=old).write_parquet(part)
    from tasks.judging import parts

    assert parts.schema_problem(part) is None
    frame = pl.scan_parquet([part], schema=store.SCHEMA, missing_columns="insert")
    read = store.with_source(frame).collect()
    assert read.select("source", "source_sha256", "source_row").row(0) == ("call", None, None)


def test_keys_of_a_frame_are_import_keys_row_by_row() -> None:
    from tasks.imports.load import KEY_PARTS, keys
    from tasks.judging.keys import import_key

    rows = pl.DataFrame(
        {
            "judge": ["gpt", "gpt", "ü"],
            "model": ["v/gpt", "v/gpt", 'a"b'],
            "prompt_level": ["plain", "strict", "plain"],
            "scale": ["winner"] * 3,
            "item_id": ["pairs:1#ab", "pairs:1#ab", "x\\y#ba"],
            "repeat": [0, 2, 1],
        }
    )
    assert keys(rows).to_list() == [import_key(*r) for r in rows.select(KEY_PARTS).iter_rows()]


def test_llmbar_results_from_a_source_are_fetched_verified_and_mapped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`llmbar:<glob>` names files of a data/sources.toml source (here a manifest of two of
    LLMBar's result files in the dataset mirror), fetched checksum-verified into data/raw."""
    import hashlib

    from conftest import mirror_dir

    from tasks import sources

    folder = "Dataset/LLMBar/Natural/evaluators/GPT-4"
    entries = []
    for strategy in ("Vanilla", "Rating"):
        mirror_path = f"{folder}/{strategy}/result.json"
        data = (mirror_dir() / "llmbar" / mirror_path).read_bytes()
        sha = hashlib.sha256(data).hexdigest()
        entries.append(
            f'[[sources.llmbar.files]]\nmirror_path = "{mirror_path}"\nurl = "https://example.invalid"\n'
            f'sha256 = "{sha}"\n'
        )
    manifest = tmp_path / "sources.toml"
    manifest.write_text('[sources.llmbar]\nloader = "x"\n' + "".join(entries))
    monkeypatch.setattr(sources, "MANIFEST", manifest)
    study_file = write_study(tmp_path / "study")
    text = LLMBAR.replace(
        '"evaluators/*/Vanilla/result.json"', f'"llmbar:{folder}/Vanilla/result.json"'
    )
    text = text.replace('"evaluators/*/Rating/result.json"', f'"llmbar:{folder}/Rat*/result.json"')
    study_file.write_text(STUDY[: STUDY.index("[[imports]]")] + text)
    settings = Settings(data_dir=tmp_path / "data", data_mirror=mirror_dir())
    rows = imported(load_study(study_file), settings, None)
    assert rows.height == 2 * 100 * 2  # strategies × records × orders
    assert set(rows["prompt_level"]) == {"Vanilla", "Rating"} and set(rows["judge"]) == {"GPT-4"}
    assert rows["status"].unique().to_list() == ["ok"]
    assert (settings.raw_dir / "llmbar" / folder / "Vanilla" / "result.json").is_file()
