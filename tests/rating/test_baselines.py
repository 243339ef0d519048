"""Baselines: native scores, their linear 1–7 rescale, keys, and config errors."""

import dataclasses

import polars as pl
import pytest

from schemas.scores import Scores
from tasks.rating import baselines
from tasks.rating.baselines import BASELINES, NOTES, baseline_scores

POSITIVE = "What a wonderful, happy day; I love it!"
NEGATIVE = "This is a horrible, sad mess and I hate it."
BENIGN = "The library opens at nine and the garden is lovely in spring."
PROFANE = "This damn printer is a piece of crap."


def _items(texts: list[str], human: list[float] | None = None) -> pl.DataFrame:
    n = len(texts)
    return pl.DataFrame(
        {
            "item_id": [f"i{i}" for i in range(n)],
            "text": texts,
            "human_mean": human or [0.0] * n,
            "human_min": [-4.0] * n,
            "human_max": [4.0] * n,
        }
    )


def test_vader_scores_are_compound_and_rescale_exactly() -> None:
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    analyzer = SentimentIntensityAnalyzer()
    expected = [analyzer.polarity_scores(t)["compound"] for t in (POSITIVE, NEGATIVE)]
    out = baseline_scores("s", "sentiment", "vader", _items([POSITIVE, NEGATIVE], [4.0, -2.0]))
    assert out["score"].to_list() == pytest.approx(expected)
    assert out["score_1to7"].to_list() == pytest.approx([1 + 6 * (c + 1) / 2 for c in expected])
    assert out["human_1to7"].to_list() == pytest.approx([7.0, 2.5])
    pos, neg = out["score_1to7"].to_list()
    assert pos > 4 > neg  # clearly positive above the midpoint, clearly negative below


def test_profanity_check_ranks_mild_profanity_above_a_benign_sentence() -> None:
    out = baseline_scores("t", "toxicity", "profanity-check", _items([BENIGN, PROFANE]))
    benign, profane = out["score"].to_list()
    assert 0 <= benign < profane <= 1
    assert out["score_1to7"].to_list() == pytest.approx([1 + 6 * benign, 1 + 6 * profane])


def test_rows_fill_the_scores_table() -> None:
    out = baseline_scores("s", "sentiment", "vader", _items([POSITIVE, NEGATIVE, POSITIVE]))
    Scores.validate(out, lazy=True)
    assert out.columns == list(Scores.to_schema().columns)
    row = out.row(0, named=True)
    assert {k: row[k] for k in ("kind", "judge", "prompt_level", "prompt_version")} == {
        "kind": "baseline",
        "judge": "vader",
        "prompt_level": "none",
        "prompt_version": "none",
    }
    assert row["model"] == "baseline/vaderSentiment-3.3.2"
    assert set(out["status"]) == {"ok"} and set(out["repeat"]) == {0}
    keys = out["key"].to_list()
    assert keys[0] == keys[2] != keys[1]  # identical texts share a key
    assert all(len(k) == 64 for k in keys)


def test_key_depends_on_baseline_not_only_text() -> None:
    vader = baseline_scores("s", "sentiment", "vader", _items([BENIGN]))
    prof = baseline_scores("t", "toxicity", "profanity-check", _items([BENIGN]))
    assert vader["key"][0] != prof["key"][0]


def test_empty_items_give_an_empty_valid_table() -> None:
    out = baseline_scores("t", "toxicity", "profanity-check", _items([]))
    assert out.height == 0 and out.columns == list(Scores.to_schema().columns)


def test_unknown_baseline_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown baseline 'nope'.*vader.*profanity-check"):
        baseline_scores("s", "sentiment", "nope", _items([BENIGN]))


def test_baseline_for_another_task_is_refused() -> None:
    with pytest.raises(ValueError, match=r"'vader' scores task 'sentiment', not 'toxicity'"):
        baseline_scores("t", "toxicity", "vader", _items([BENIGN]))


def test_registry_version_must_match_the_installed_package(monkeypatch) -> None:
    stale = dataclasses.replace(BASELINES["vader"], version="0.0.1")
    monkeypatch.setitem(baselines.BASELINES, "vader", stale)
    with pytest.raises(RuntimeError, match=r"vaderSentiment==0\.0\.1"):
        baseline_scores("s", "sentiment", "vader", _items([BENIGN]))


def test_every_baseline_has_a_report_note() -> None:
    assert set(NOTES) == set(BASELINES) and all(NOTES.values())


def test_vader_is_optimistic_only_on_its_own_texts() -> None:
    """VADER's lexicon was validated on the VADER texts: that caveat is for that benchmark, not
    for a user's own file (nor for another benchmark)."""
    vader = BASELINES["vader"]
    assert "optimistic" in vader.note_on("vader") and vader.note in vader.note_on("vader")
    for benchmark in ("file", "convabuse"):
        assert vader.note_on(benchmark) == vader.note and "optimistic" not in vader.note
    table = baselines.baseline_table("s", "sentiment", ["vader"], "file")
    assert table["note"].to_list() == [vader.note]
    profanity = BASELINES["profanity-check"]  # no benchmark of its own: one note everywhere
    assert profanity.note_on("convabuse") == profanity.note_on("file") == profanity.note
