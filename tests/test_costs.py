"""Costs: litellm's offline price map per design, online and batch calls apart, cached prompt
tokens at the cache's rates; unknown models (and unlisted batch prices) stay null, not zero.
Expected figures are computed here by hand from the map's own rates, so a test fails when
the code stops reading the rate it claims to read."""

import json
import re
from pathlib import Path

import litellm
import polars as pl
import pytest

from judgelab.settings import Settings
from tasks import warehouse
from tasks.costs import CHARS_PER_TOKEN, design_costs, estimate, estimate_totals, price

MINI = litellm.model_cost["gpt-4o-mini"]  # openai/gpt-4o-mini
SONNET = litellm.model_cost["claude-sonnet-4-5"]  # anthropic/claude-sonnet-4-5


def test_known_model_is_priced_from_the_table() -> None:
    # gpt-4o-mini lists $0.15 per million input and $0.60 per million output tokens
    assert price("openai/gpt-4o-mini", 1_000_000, 1_000_000) == pytest.approx(0.75)
    assert price("local/smollm2-135m-instruct", 1000, 10) is None


def test_cached_tokens_cost_the_cache_read_rate_and_writes_the_write_rate() -> None:
    cost = price("openai/gpt-4o-mini", 10_000, 100, cached_tokens=4_000)
    want = (
        6_000 * MINI["input_cost_per_token"]
        + 4_000 * MINI["cache_read_input_token_cost"]
        + 100 * MINI["output_cost_per_token"]
    )
    assert MINI["cache_read_input_token_cost"] < MINI["input_cost_per_token"]
    assert cost == pytest.approx(want)
    # Anthropic's cache writes cost more than its input (the map says so; we price them so)
    assert SONNET["cache_creation_input_token_cost"] > SONNET["input_cost_per_token"]
    cost = price("anthropic/claude-sonnet-4-5", 10_000, 100, 3_000, 2_000)
    want = (
        5_000 * SONNET["input_cost_per_token"]
        + 3_000 * SONNET["cache_read_input_token_cost"]
        + 2_000 * SONNET["cache_creation_input_token_cost"]
        + 100 * SONNET["output_cost_per_token"]
    )
    assert cost == pytest.approx(want)


def test_batch_tokens_cost_the_batch_rates_of_the_map() -> None:
    online = price("openai/gpt-4o-mini", 10_000, 100)
    batch = price("openai/gpt-4o-mini", 10_000, 100, batch=True)
    want = (
        10_000 * MINI["input_cost_per_token_batches"] + 100 * MINI["output_cost_per_token_batches"]
    )
    assert batch == pytest.approx(want)
    assert batch <= 0.55 * online
    # no batch cache-read rate for gpt-4o-mini in the map: a cached token in a batch costs the
    # batch input rate (litellm's rule), not an assumed double discount
    assert "cache_read_input_token_cost_batches" not in MINI
    assert price("openai/gpt-4o-mini", 10_000, 100, 4_000, batch=True) == pytest.approx(want)
    # Anthropic lists batch cache rates: they are used
    cost = price("anthropic/claude-sonnet-4-5", 10_000, 100, 3_000, 2_000, batch=True)
    want = (
        5_000 * SONNET["input_cost_per_token_batches"]
        + 3_000 * SONNET["cache_read_input_token_cost_batches"]
        + 2_000 * SONNET["cache_creation_input_token_cost_batches"]
        + 100 * SONNET["output_cost_per_token_batches"]
    )
    assert cost == pytest.approx(want)


def test_unknown_model_and_unlisted_batch_price_are_null_not_zero() -> None:
    for model in ("local/smollm2-135m-instruct", "fake/x", "mock/judge", "openai/no-such-model"):
        assert price(model, 1000, 10) is None, model
        assert price(model, 1000, 10, batch=True) is None, model
    # Mistral has a batch API, but the map lists no batch price for it: unknown, not half
    assert "input_cost_per_token_batches" not in litellm.model_cost["mistral/mistral-small-latest"]
    assert price("mistral/mistral-small-latest", 1000, 10) > 0
    assert price("mistral/mistral-small-latest", 1000, 10, batch=True) is None


def _calls(**columns: list) -> pl.DataFrame:
    n = len(columns["key"])
    base = {
        "study": ["s"] * n,
        "judge": ["g"] * n,
        "model": ["openai/gpt-4o-mini"] * n,
        "prompt_level": ["base"] * n,
        "scale": ["likert7"] * n,
        "reasoning_effort": ["default"] * n,
        "cached_tokens": [None] * n,
        "cache_write_tokens": [None] * n,
        "batch_id": [None] * n,
    }
    return pl.DataFrame(
        {**base, **columns},
        schema_overrides={
            "cached_tokens": pl.Int64,
            "cache_write_tokens": pl.Int64,
            "batch_id": pl.String,
        },
    )


def test_design_costs_sum_tokens_and_requests() -> None:
    calls = _calls(
        key=["a", "b", "c", "d", "a"],  # two items with identical text share call "a"
        status=["ok", "ok", "error", None, "ok"],
        attempts=[1, 3, 6, None, 1],
        prompt_tokens=[500_000, 500_000, None, None, 500_000],
        completion_tokens=[10, 20, None, None, 10],
    )
    row = design_costs(calls).row(0, named=True)
    assert (row["n_planned"], row["n_stored"], row["requests"]) == (4, 3, 10)
    assert row["prompt_tokens"] == 1_000_000 and row["completion_tokens"] == 30
    assert row["cost_usd"] == pytest.approx(0.15 + 30 * 0.6e-6)
    assert row["online_cost_usd"] == row["cost_usd"] and row["batch_cost_usd"] == 0.0
    assert row["batch_calls"] == 0
    assert row["cached_tokens"] is None  # no call reported its cache use: unknown, not 0


def test_design_costs_split_batch_from_online_calls_and_price_cached_tokens() -> None:
    calls = _calls(
        key=["on1", "on2", "b1", "b2", "b3"],
        status=["ok"] * 5,
        attempts=[1] * 5,
        prompt_tokens=[2_000, 2_000, 2_000, 2_000, 2_000],
        completion_tokens=[10, 10, 12, 12, 12],
        cached_tokens=[0, 1_536, 1_536, 1_536, None],
        batch_id=[None, None, "batch_1", "batch_1", "batch_2"],
    )
    row = design_costs(calls).row(0, named=True)
    assert row["batch_calls"] == 3
    assert (row["batch_prompt_tokens"], row["batch_completion_tokens"]) == (6_000, 36)
    assert row["cached_tokens"] == 3 * 1_536 and row["cache_write_tokens"] is None
    online = (
        (4_000 - 1_536) * MINI["input_cost_per_token"]
        + 1_536 * MINI["cache_read_input_token_cost"]
        + 20 * MINI["output_cost_per_token"]
    )
    # in a batch the map lists no cache-read rate for gpt-4o-mini: the batch input rate
    batch = (
        6_000 * MINI["input_cost_per_token_batches"] + 36 * MINI["output_cost_per_token_batches"]
    )
    assert row["online_cost_usd"] == pytest.approx(online)
    assert row["batch_cost_usd"] == pytest.approx(batch)
    assert row["cost_usd"] == pytest.approx(online + batch)


def test_design_costs_of_unknown_models_and_unlisted_batch_prices_are_null() -> None:
    calls = _calls(
        key=["a", "b"],
        status=["ok", "ok"],
        attempts=[1, 1],
        prompt_tokens=[100, 100],
        completion_tokens=[5, 5],
        model=["fake/x", "mistral/mistral-small-latest"],
        judge=["f", "m"],
        batch_id=[None, "batch_9"],
    )
    rows = {r["judge"]: r for r in design_costs(calls).iter_rows(named=True)}
    f, m = rows["f"], rows["m"]
    assert (f["cost_usd"], f["online_cost_usd"], f["batch_cost_usd"]) == (None, None, None)
    assert m["online_cost_usd"] == 0.0 and m["batch_calls"] == 1  # its one call was batched
    assert m["batch_cost_usd"] is None and m["cost_usd"] is None  # no batch price listed


def test_tbl_design_cost_totals_keep_unknown_parts_unknown(settings: Settings) -> None:
    """The (all) row sums the designs' batch and cached figures; a total with a design whose
    price is unknown is unknown, not the sum of the known ones."""
    calls = pl.concat(
        [
            _calls(key=["a", "b"], status=["ok"] * 2, attempts=[1, 1],
                   prompt_tokens=[100_000, 100_000], completion_tokens=[5, 5],
                   model=["mistral/mistral-small-latest"] * 2, batch_id=[None, "x"]),
            _calls(key=["c"], status=["ok"], attempts=[1], prompt_tokens=[100_000],
                   completion_tokens=[5], model=["mistral/mistral-small-latest"],
                   scale=["pct100"], cached_tokens=[64]),
        ]
    )  # fmt: skip
    warehouse.write_table(settings, design_costs(calls), "design_costs", "s")
    warehouse.publish_views(settings)
    got = warehouse.query(
        settings,
        "select scale, batch_calls, cached_tokens, online_cost_usd, batch_cost_usd, cost_usd "
        "from tbl_design_cost order by scale",
    ).rows(named=True)
    total = next(r for r in got if r["scale"] == "(all)")
    assert total["batch_calls"] == 1 and total["cached_tokens"] == 64
    assert total["online_cost_usd"] > 0
    assert total["batch_cost_usd"] is None and total["cost_usd"] is None
    pct = next(r for r in got if r["scale"] == "pct100")
    assert pct["batch_cost_usd"] == 0.0 and pct["cost_usd"] == pct["online_cost_usd"]


def _messages(system: str, text: str) -> str:
    return json.dumps([{"content": system, "role": "system"}, {"content": text, "role": "user"}])


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
    assert row["online_usd"] == pytest.approx(300 * 0.15e-6 + 32 * 0.6e-6)
    assert row["cached_tokens"] == 0  # no system prompt: nothing shared to cache


def test_estimate_prices_batch_and_the_expected_cache_hits_of_a_shared_system_prompt() -> None:
    """10 calls of one design share a system prompt of 1,500 tokens: the first writes it,
    9 read OpenAI's cacheable part of it (1,024 + a multiple of 128 = 1,408 tokens); a
    100-token system prompt of another design is below the 1,024-token minimum."""
    long_system, short_system = "s" * (1_500 * CHARS_PER_TOKEN), "t" * 400
    messages = [_messages(long_system, f"text {i}") for i in range(10)]
    messages += [_messages(short_system, f"text {i}") for i in range(5)]
    plan = pl.DataFrame(
        {
            "judge": ["g"] * 15,
            "model": ["openai/gpt-4.1"] * 15,
            "messages": messages,
            "params": ['{"max_tokens": 16}'] * 15,
        }
    )
    row = estimate(plan).row(0, named=True)
    rates = litellm.model_cost["gpt-4.1"]
    prompt = sum(len(m) // CHARS_PER_TOKEN for m in messages)
    assert row["prompt_tokens"] == prompt and row["cached_tokens"] == 9 * 1_408
    online = prompt * rates["input_cost_per_token"] + 15 * 16 * rates["output_cost_per_token"]
    batch_in, batch_out = (
        rates["input_cost_per_token_batches"],
        rates["output_cost_per_token_batches"],
    )
    assert row["online_usd"] == pytest.approx(online)
    assert row["batch_usd"] == pytest.approx(prompt * batch_in + 240 * batch_out)
    assert row["batch_usd"] <= 0.55 * row["online_usd"]
    # the map lists no batch cache-read rate for gpt-4.1: cached tokens cost the batch input
    # rate, so the cache saves nothing in a batch here (and the figure says so, not a guess)
    assert row["batch_cache_usd"] == pytest.approx(row["batch_usd"])
    # Anthropic lists batch cache rates: reads save, the one write costs more than input
    claude = plan.with_columns(pl.lit("anthropic/claude-sonnet-4-5").alias("model"))
    row = estimate(claude).row(0, named=True)
    assert row["cached_tokens"] == 9 * 1_500  # its minimum (map: 1,024) with no 128-steps
    want = (
        (prompt - 10 * 1_500) * SONNET["input_cost_per_token_batches"]
        + 9 * 1_500 * SONNET["cache_read_input_token_cost_batches"]
        + 1_500 * SONNET["cache_creation_input_token_cost_batches"]
        + 240 * SONNET["output_cost_per_token_batches"]
    )
    assert row["batch_cache_usd"] == pytest.approx(want)
    assert row["batch_cache_usd"] < row["batch_usd"]


def test_estimate_of_unknown_models_is_null_and_left_out_of_totals() -> None:
    plan = pl.DataFrame(
        {
            "judge": ["g", "f"],
            "model": ["openai/gpt-4o-mini", "fake/x"],
            "messages": ["x" * 400] * 2,
            "params": ['{"max_tokens": 16}'] * 2,
        }
    )
    est = estimate(plan)
    f = est.filter(pl.col("judge") == "f").row(0, named=True)
    assert (f["online_usd"], f["batch_usd"], f["batch_cache_usd"]) == (None, None, None)
    totals = estimate_totals(est)
    assert (totals["priced"], totals["judges"]) == (1, 2)
    assert totals["online_usd"] == pytest.approx(est["online_usd"][0])


def _figures(line: str) -> tuple[float, float, float]:
    """online, batch and batch + cache from `judgelab plan`'s cost line."""
    m = re.search(
        r"online \$([\d.,]+) · batch \$([\d.,]+) \(.*\) · batch \+ cache \$([\d.,]+)", line
    )
    assert m, line
    a, b, c = (float(x.replace(",", "")) for x in m.groups())
    return a, b, c


def test_plan_prints_online_batch_and_cached_costs(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`judgelab plan` of a study with an OpenAI judge prints the three figures, batch ≤ 55%
    of online from the map; a judge without a price prints n/a, not 0 (and no key needed)."""
    from judgelab.cli import main

    monkeypatch.setenv("JUDGELAB_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("COLUMNS", "200")
    rows = "".join(f"{k},text number {k},{k % 5 + 1}\n" for k in range(1, 13))
    (tmp_path / "mine.csv").write_text("id,sentence,valence\n" + rows)
    study = tmp_path / "mine.toml"
    study.write_text(
        '[study]\nname = "mine"\ntask = "sentiment"\nbenchmark = "file"\nsample_size = 10\n'
        'prompt_levels = ["base", "long_icl"]\nscales = ["likert7", "pct100"]\n'
        '[study.data]\npath = "mine.csv"\nid_column = "id"\ntext_column = "sentence"\n'
        'mean_column = "valence"\nscale_min = 1\nscale_max = 5\n'
        '[[judges]]\nname = "mini"\nmodel = "openai/gpt-4o-mini"\n'
        '[[judges]]\nname = "fake"\nmodel = "fake/x"\n'
    )
    assert main(["plan", str(study)]) == 0
    out = capsys.readouterr().out
    (line,) = [ln for ln in out.splitlines() if ln.startswith("estimated cost")]
    assert line.startswith("estimated cost (1 of 2 judges priced): ")
    online, batch, cached = _figures(line)
    assert 0 < batch <= 0.55 * online and cached <= batch
    per_judge = out[out.index("online_usd") :].splitlines()  # the cost table, after the counts
    (fake,) = [ln for ln in per_judge if ln.startswith("│ fake ")]
    assert fake.count("n/a") == 3 and "$" not in fake
    (mini,) = [ln for ln in per_judge if ln.startswith("│ mini ")]
    assert mini.count("$") == 3


def test_paper_scale_study_plans_without_keys_and_batch_is_at_most_55_percent(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 28's done-when: `judgelab plan studies/paper_scale.toml` (ten hosted judges × 12
    designs × 500 texts per rating task) prints the three figures, batch ≤ 55% of online,
    every judge priced from the map; no provider key is needed to plan."""
    from judgelab.cli import main
    from judgelab.settings import PROJECT_ROOT

    monkeypatch.setenv("JUDGELAB_DATA_DIR", str(tmp_path / "data"))
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "XAI_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    assert main(["plan", str(PROJECT_ROOT / "studies" / "paper_scale.toml")]) == 0
    out = capsys.readouterr().out
    (line,) = [ln for ln in out.splitlines() if ln.startswith("suite ") and "online $" in ln]
    assert "judges priced" not in line  # all ten have all three prices
    online, batch, cached = _figures(line)
    assert batch <= 0.55 * online and cached <= batch
    assert out.rstrip().endswith("2 studies, 109,920 calls planned, 0 stored, 109,920 missing")
