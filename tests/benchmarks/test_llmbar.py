"""LLMBar Natural: every file of the mirror is in the manifest with its origin and checksum;
the pairs keep output 1 as answer a and the label as the human's choice; a pairwise study
with `benchmark = "llmbar"` loads them; the authors' statistics.json files parse into counts.
Texts are compared only inside asserts that print booleans and counts, never the texts."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from judgelab.settings import Settings
from judgelab.study import load_study
from schemas.validate import TableError
from tasks.benchmarks import llmbar
from tasks.pairwise.stages import pairs_table
from tasks.sources import fetch, load_manifest
from tasks.study_types import StudyType

COMMIT = "900616bff90b6c6c8e1681f7d079250637c55992"
N_STRATEGIES = {"ChatGPT": 12, "ChatGPT-0301": 10, "Falcon": 10, "GPT-4": 15, "LLaMA2": 10}
N_STRATEGIES |= {"PaLM2": 8}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    from conftest import mirror_dir

    settings = Settings(data_dir=tmp_path_factory.mktemp("llmbar"), data_mirror=mirror_dir())
    return fetch([llmbar.BENCHMARK], settings)


def test_manifest_lists_every_mirrored_file_at_the_commit() -> None:
    from conftest import mirror_dir

    sums = (mirror_dir() / "llmbar" / "SHA256SUMS").read_text().splitlines()
    expected = {path.removeprefix("./"): sha for sha, path in (line.split() for line in sums)}
    entries = load_manifest()[llmbar.BENCHMARK]
    assert {f.mirror_path: f.sha256 for f in entries} == expected
    assert len(entries) == 132  # dataset.json, LICENSE, 65 × (result.json, statistics.json)
    base = f"https://raw.githubusercontent.com/princeton-nlp/LLMBar/{COMMIT}/"
    assert all(f.url == base + f.mirror_path for f in entries)


def test_pairs_keep_the_upstream_order_and_label(
    files: list[Path], capsys: pytest.CaptureFixture
) -> None:
    pairs = llmbar.from_files(files, Settings(), None)
    records = json.loads(llmbar.dataset_file(files).read_text(encoding="utf-8"))
    assert pairs.height == len(records) == 100
    assert pairs["pair_id"].to_list() == [f"llmbar:natural:{i}" for i in range(100)]
    assert set(pairs["domain"]) == {"natural"} and set(pairs["source"]) == {"llmbar"}
    assert pairs["preferred"].to_list() == ["ab"[r["label"] - 1] for r in records]
    assert pairs["answer_a"].to_list() == [r["output_1"] for r in records]
    assert pairs["answer_b"].to_list() == [r["output_2"] for r in records]
    assert pairs["context"].to_list() == [r["input"] for r in records]
    assert capsys.readouterr() == ("", "")  # nothing printed


def test_a_bad_label_is_named_by_item_never_by_text() -> None:
    with pytest.raises(TableError, match=r"item 1: label must be 1 or 2") as err:
        llmbar.pairs(
            [{"input": "SECRET", "output_1": "x", "output_2": "y", "label": 1}] * 1
            + [{"input": "SECRET", "output_1": "x", "output_2": "y", "label": 3}]
        )
    assert "SECRET" not in str(err.value)


def test_a_pairwise_study_loads_llmbar(files: list[Path], tmp_path: Path) -> None:
    from conftest import mirror_dir

    toml = (Path(__file__).parents[2] / "studies" / "pairwise.toml").read_text()
    path = tmp_path / "llmbar.toml"
    path.write_text(toml.replace('benchmark = "hhrlhf"', 'benchmark = "llmbar"'))
    study = load_study(path)
    StudyType.named("pairwise").load("checks")(study)
    settings = Settings(data_dir=tmp_path / "data", data_mirror=mirror_dir())
    table = pairs_table(study, settings)
    assert table.height == study.sample_size
    assert table["pair_id"].str.starts_with("llmbar:natural:").all()
    with pytest.raises(ValueError, match="not a rating benchmark"):
        StudyType.named("rating").load("checks")(study.model_copy(update={"type": "rating"}))


def test_every_evaluator_and_strategy_has_its_files(files: list[Path]) -> None:
    results = llmbar.evaluator_files(files)
    stats = llmbar.evaluator_files(files, "statistics.json")
    assert results.select("evaluator", "strategy").equals(stats.select("evaluator", "strategy"))
    counts = dict(results.group_by("evaluator").len().iter_rows())
    assert counts == N_STRATEGIES
    assert results.filter(pl.col("evaluator") == "GPT-4")["strategy"].to_list()[:3] == [
        "CoT",
        "Metrics",
        "Metrics_Reference",
    ]


def test_published_statistics_parse_into_counts(files: list[Path]) -> None:
    table = llmbar.published(files)
    assert table.height == 65 and table.null_count().sum_horizontal().item() == 0
    assert set(table["n"]) == {100}
    gpt4 = table.filter(evaluator="GPT-4", strategy="Vanilla").row(0, named=True)
    # GPT-4/Vanilla/statistics.json: 95 / 100, 96 / 100, 95.5%, 93 / 100, 95 / 100
    assert (gpt4["correct_ab"], gpt4["correct_ba"], gpt4["correct_both"], gpt4["equal"]) == (
        95,
        96,
        93,
        95,
    )
    assert gpt4["correct_average"] == pytest.approx(0.955)
    assert gpt4["kappa_agreement"] == pytest.approx(0.897708674304419, abs=1e-12)
    average = (pl.col("correct_ab") + pl.col("correct_ba")) / (2 * pl.col("n"))
    assert ((table["correct_average"] - table.select(average).to_series()).abs() < 1e-12).all()


def test_a_statistic_in_another_form_is_refused() -> None:
    good = {"correct_False": "1 / 2 = 50.0%", "correct_True": "1 / 2 = 50.0%"}
    good |= {"correct_both": "0 / 2 = 0.0%", "equal": "1 / 2 = 50.0%", "correct_average": "50%"}
    assert llmbar.parse_statistics(good, "x/y")["n"] == 2
    with pytest.raises(TableError, match="x/y: equal is not"):
        llmbar.parse_statistics(good | {"equal": "50%"}, "x/y")
    with pytest.raises(TableError, match="different denominators"):
        llmbar.parse_statistics(good | {"equal": "1 / 3 = 33%"}, "x/y")
