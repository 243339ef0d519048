"""Semantic similarity of originals and rewrites: offline all-MiniLM-L6-v2 and the litellm path."""

from __future__ import annotations

import sys
import types

import pytest

from tasks.tone.similarity import DEFAULT_MODEL, local_backend_missing, similarity

MISSING = local_backend_missing()
needs_local = pytest.mark.skipif(MISSING is not None, reason=str(MISSING))

MEETING = "The meeting was moved to Friday because the manager was ill."
# Cosines computed with sentence-transformers 6.2.0 on torch 2.13.0+cpu from the same weights.
REFERENCE = [
    (MEETING, "Because the manager was sick, the meeting was rescheduled to Friday.", 0.8689807),
    (MEETING, "Penguins live mostly in the Southern Hemisphere.", -0.0156288),
    (
        "I think the proposal might reduce costs a little, but I am not sure.",
        "The proposal will reduce costs.",
        0.9057534,
    ),
    (
        "Bottled water is a waste of money when tap water is safe to drink.",
        "Honestly, paying for bottled water is pointless if the tap water is perfectly safe.",
        0.8831301,
    ),
]


@needs_local
def test_identical_texts_score_one() -> None:
    texts = [MEETING, "", "Short.", "A longer text. " * 100]  # empty and truncated ones too
    assert similarity(texts, texts) == pytest.approx([1.0] * len(texts), abs=1e-9)


@needs_local
def test_paraphrase_scores_above_unrelated() -> None:
    paraphrase, unrelated = similarity(
        [MEETING, MEETING],
        [
            "Because the manager was sick, the meeting was rescheduled to Friday.",
            "Penguins live mostly in the Southern Hemisphere.",
        ],
    )
    assert paraphrase > 0.8
    assert abs(unrelated) < 0.2
    assert paraphrase > unrelated


@needs_local
def test_matches_sentence_transformers() -> None:
    originals, rewrites, expected = zip(*REFERENCE, strict=True)
    got = similarity(list(originals), list(rewrites), DEFAULT_MODEL)
    assert got == pytest.approx(list(expected), abs=1e-5)


@needs_local
def test_order_and_batching_do_not_matter() -> None:
    originals, rewrites, _ = zip(*REFERENCE, strict=True)
    whole = similarity(list(originals), list(rewrites))
    one_at_a_time = [similarity([a], [b])[0] for a, b in zip(originals, rewrites, strict=True)]
    backwards = similarity(list(originals)[::-1], list(rewrites)[::-1])[::-1]
    assert one_at_a_time == pytest.approx(whole, abs=1e-6)
    assert backwards == pytest.approx(whole, abs=1e-6)


def test_input_checks() -> None:
    assert similarity([], []) == []
    with pytest.raises(ValueError, match="differ in length"):
        similarity(["a"], [])
    with pytest.raises(TypeError, match=r"rewrites\[1\]"):
        similarity(["a", "b"], ["a", None])  # type: ignore[list-item]


def test_other_models_go_through_litellm_embedding(monkeypatch: pytest.MonkeyPatch) -> None:
    vectors = {"a": [1.0, 0.0], "b": [0.0, 2.0], "c": [3.0, 3.0]}
    calls: list[dict] = []

    def embedding(**kwargs):
        calls.append(kwargs)
        items = [{"index": i, "embedding": vectors[t]} for i, t in enumerate(kwargs["input"])]
        return types.SimpleNamespace(data=items[::-1])  # out of order: sorted by index

    fake = types.ModuleType("litellm")
    fake.embedding = embedding  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "litellm", fake)

    got = similarity(["a", "a", "b"], ["b", "c", "c"], "openai/text-embedding-3-small")
    assert got == pytest.approx([0.0, 2**-0.5, 2**-0.5])
    assert [c["input"] for c in calls] == [["a", "b", "c"]]  # each distinct text once
    assert calls[0]["model"] == "openai/text-embedding-3-small"
    assert calls[0]["timeout"] > 0 and calls[0]["num_retries"] >= 0

    calls.clear()
    similarity(["a", "b"], ["c", "a"], "some/model", batch_size=2)
    assert [c["input"] for c in calls] == [["a", "b"], ["c"]]
