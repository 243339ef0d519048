"""The import stage in process: a user's 10-row CSV of verdicts becomes store rows (source
"import") and plan rows; importing again writes nothing, an edited row is one new store row
(the newest row per key wins), a removed row leaves the plan and the analysis."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from importstudy import VERDICTS, write_study

from judgelab.settings import Settings
from judgelab.study import load_study
from tasks import warehouse
from tasks.imports.stage import import_stage
from tasks.judging import store
from tasks.pairwise import stages


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Path, Settings]:
    return write_study(tmp_path / "study"), Settings(data_dir=tmp_path / "data")


def run(study_file: Path, settings: Settings) -> tuple[int, dict, pl.DataFrame]:
    """load → import → plan → analysis, as the flow wires them (no judge stage: nothing to
    call); the store rows written, the plan's counts and pairwise_verdicts."""
    study = load_study(study_file)
    stages.load_pairs.fn(study, settings)
    written = import_stage.fn(study, settings, "test-run")
    counts, _ = stages.make_plan.fn(study, settings)
    stages.analysis_stage.fn(study, settings)
    verdicts = warehouse.read_table(settings, "pairwise_verdicts", study.name)
    return written, counts, verdicts


def test_imported_verdicts_are_stored_planned_and_analysed(setup: tuple) -> None:
    study_file, settings = setup
    written, counts, verdicts = run(study_file, settings)
    assert written == 10
    assert counts == {
        "gpt": {"planned": 6, "stored": 6, "missing": 0},
        "claude": {"planned": 4, "stored": 4, "missing": 0},
    }
    rows = store.read_store(settings.store_dir)
    assert set(rows["source"]) == {"import"} and rows["source_row"].sort().to_list() == list(
        range(1, 11)
    )
    assert set(rows["attempts"]) == {0} and rows["cost_usd"].is_null().all()
    got = verdicts.sort("judge", "prompt_level", "pair_id", "shown_first").select(
        "judge", "prompt_level", "pair_id", "shown_first", "position", "winner"
    )
    assert got.rows()[:4] == [
        ("claude", "plain", "pairs:1", "a", "tie", "tie"),
        ("claude", "plain", "pairs:1", "b", "B", "a"),  # b shown first: a sits at B
        ("claude", "strict", "pairs:2", "a", "B", "b"),
        ("claude", "strict", "pairs:2", "b", "A", "b"),
    ]
    position = warehouse.read_table(settings, "pairwise_position", "imported").sort(
        "judge", "prompt_level"
    )
    assert position.select("judge", "prompt_level", "consistency", "n_first_both").rows() == [
        ("claude", "plain", 0.0, 0),
        ("claude", "strict", 1.0, 0),
        ("gpt", "plain", 0.5, 1),
        ("gpt", "strict", 1.0, 0),
    ]


def test_reimport_writes_nothing_an_edit_one_row_a_removal_leaves_the_analysis(
    setup: tuple,
) -> None:
    study_file, settings = setup
    run(study_file, settings)
    parts = store.part_files(settings.store_dir)
    written, _, _ = run(study_file, settings)
    assert written == 0 and store.part_files(settings.store_dir) == parts

    # gpt/plain/pair 2 shown b first: b wins → a wins (a second-position win now)
    edited = VERDICTS.replace("gpt,plain,2,b,2", "gpt,plain,2,b,1")
    (study_file.parent / "verdicts.csv").write_text(edited)
    written, _, verdicts = run(study_file, settings)
    assert written == 1 and store.read_store(settings.store_dir).height == 11
    cell = verdicts.filter(
        (pl.col("judge") == "gpt")
        & (pl.col("pair_id") == "pairs:2")
        & (pl.col("shown_first") == "b")
    )
    assert cell.select("position", "winner").rows() == [("B", "a")]
    position = warehouse.read_table(settings, "pairwise_position", "imported")
    gpt = position.filter((pl.col("judge") == "gpt") & (pl.col("prompt_level") == "plain"))
    assert gpt["consistency"].item() == 1.0

    removed = "\n".join(line for line in edited.splitlines() if line != "claude,plain,1,b,1")
    (study_file.parent / "verdicts.csv").write_text(removed + "\n")
    written, counts, verdicts = run(study_file, settings)
    assert written == 2  # the two rows after the removed one moved up: their numbers change
    assert counts["claude"]["planned"] == 3 and verdicts.height == 9
    claude = verdicts.filter((pl.col("judge") == "claude") & (pl.col("prompt_level") == "plain"))
    assert claude["shown_first"].to_list() == ["a"]


def test_reparse_leaves_imported_answers_alone(setup: tuple) -> None:
    """A labelled answer's raw text is the judge's own (or none), not what the scale's parser
    reads: reparse would turn every imported verdict unparseable."""
    from tasks import stages as shared

    study_file, settings = setup
    run(study_file, settings)
    result = shared.reparse_stage.fn(load_study(study_file), settings)
    assert result == {"checked": 0, "changed": 0}
    assert set(store.latest_rows(settings.store_dir)["status"]) == {"ok"}


def test_rows_outside_the_sample_are_left_out_and_counted_aloud(
    setup: tuple, caplog: pytest.LogCaptureFixture
) -> None:
    """A sampled study analyses its sampled pairs only: the imported rows on other pairs are
    left out, and the run log says how many (never silently)."""
    study_file, settings = setup
    study_file.write_text(study_file.read_text().replace("sample_size = 0", "sample_size = 1"))
    with caplog.at_level("WARNING", logger="tasks.imports.stage"):
        written, counts, verdicts = run(study_file, settings)
    planned = sum(c["planned"] for c in counts.values())
    assert 0 < written == planned == verdicts.height < 10
    (said,) = [r.getMessage() for r in caplog.records if "left out" in r.getMessage()]
    assert f": {10 - written} of 10 imported rows are on items outside the sample" in said
    assert "sample_size = 1" in said
