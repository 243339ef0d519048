"""Costs: litellm's offline price table per design; unknown models stay null, not zero."""

import polars as pl
import pytest

from tasks.costs import design_costs, estimate, price


def test_known_model_is_priced_from_the_table() -> None:
    # gpt-4o-mini lists $0.15 per million input and $0.60 per million output tokens
    assert price("openai/gpt-4o-mini", 1_000_000, 1_000_000) == pytest.approx(0.75)
    assert price("local/smollm2-135m-instruct", 1000, 10) is None


def test_design_costs_sum_tokens_and_requests() -> None:
    calls = pl.DataFrame(
        {
            "study": ["s"] * 5,
            "judge": ["g"] * 5,
            "model": ["openai/gpt-4o-mini"] * 5,
            "prompt_level": ["base"] * 5,
            "scale": ["likert7"] * 5,
            "reasoning_effort": ["default"] * 5,
            "key": ["a", "b", "c", "d", "a"],  # two items with identical text share call "a"
            "status": ["ok", "ok", "error", None, "ok"],
            "attempts": [1, 3, 6, None, 1],
            "prompt_tokens": [500_000, 500_000, None, None, 500_000],
            "completion_tokens": [10, 20, None, None, 10],
        }
    )
    row = design_costs(calls).row(0, named=True)
    assert (row["n_planned"], row["n_stored"], row["requests"]) == (4, 3, 10)
    assert row["prompt_tokens"] == 1_000_000 and row["completion_tokens"] == 30
    assert row["cost_usd"] == pytest.approx(0.15 + 30 * 0.6e-6)


def test_estimate_uses_message_length_and_max_tokens() -> None:
    plan = pl.DataFrame(
        {
            "judge": ["g", "g"],
            "model": ["openai/gpt-4o-mini"] * 2,
            "messages": ["x" * 400, "y" * 800],
            "params": ['{"max_tokens": 16}', '{"max_tokens": 16}'],
        }
    )
    row = estimate(plan).row(0, named=True)
    assert (row["calls"], row["prompt_tokens"], row["completion_tokens"]) == (2, 300, 32)
    assert row["cost_usd"] == pytest.approx(300 * 0.15e-6 + 32 * 0.6e-6)
