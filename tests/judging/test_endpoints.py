"""Endpoints in call keys, and the plan's one line about answers stored from another endpoint."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import polars as pl
import pytest

from judgelab.settings import Settings
from judgelab.study import Judge, Study
from tasks import warehouse
from tasks.judging import store
from tasks.judging.endpoints import foreign_answers, foreign_lines
from tasks.judging.keys import call_key, endpoint, request_params
from tasks.judging.scales import load_scales
from tasks.plan import build_plan

SCALES = load_scales()
MSGS = [{"role": "system", "content": "Rate 1-7."}, {"role": "user", "content": 'Text: "hi"'}]
A, B = "http://127.0.0.1:5001/v1", "http://127.0.0.1:5002/v1"
TEXTS = pl.DataFrame({"item_id": ["a", "b"], "text": ["I love it.", "Meh, it broke."]})


def key(judge: Judge, at: str | None = None) -> str:
    s = SCALES["likert7"]
    return call_key(judge.model, MSGS, s, request_params(judge, s), 0, endpoint=at)


def study(api_base: str | None, reuse: bool = False) -> Study:
    judge = {"name": "j", "model": "openai/m", "api_base": api_base}
    return Study.model_validate(
        {
            "name": "ep",
            "task": "sentiment",
            "benchmark": "vader",
            "sample_size": 0,
            "prompt_levels": ["base"],
            "scales": ["likert7", "unit"],
            "judges": [judge],
            "reuse_across_endpoints": reuse,
        }
    )


@pytest.mark.parametrize(
    ("api_base", "want"),
    [(None, None), ("", None), ("  ", None), (f" {A}/ ", A), (f"{A}//", A), (A, A)],
)
def test_endpoint_is_the_api_base_normalised(api_base: str | None, want: str | None) -> None:
    assert endpoint(Judge(name="j", model="openai/m", api_base=api_base)) == want


def test_default_endpoint_keeps_the_key_and_another_changes_it() -> None:
    judge = Judge(name="j", model="openai/m")
    s = SCALES["likert7"]
    before = call_key(judge.model, MSGS, s, request_params(judge, s), 0)  # the old call
    assert key(judge, None) == before
    assert key(judge, A) != before and key(judge, B) != before and key(judge, A) != key(judge, B)


def test_plan_keys_carry_the_endpoint_unless_the_study_reuses_across_endpoints() -> None:
    default = build_plan(study(None), TEXTS, SCALES)
    at_a = build_plan(study(f"{A}/"), TEXTS, SCALES)
    at_b = build_plan(study(B), TEXTS, SCALES)
    reused = build_plan(study(B, reuse=True), TEXTS, SCALES)
    assert (default["key"] == default["base_key"]).all()
    for plan in (at_a, at_b, reused):  # the base key never depends on the endpoint
        assert plan["base_key"].to_list() == default["key"].to_list()
    assert not set(at_a["key"]) & set(default["key"])
    assert not set(at_a["key"]) & set(at_b["key"])
    assert reused["key"].to_list() == reused["base_key"].to_list()


PLAN = pl.DataFrame(
    {
        "judge": ["j", "j", "j", "j", "j", "d"],
        "key": ["kA1", "kA1", "kA2", "kA3", "kA4", "b6"],  # an identical text: kA1 twice
        "base_key": ["b1", "b1", "b2", "b3", "b4", "b6"],
    }
)
ENDPOINTS = {"j": A, "d": None}


def stored(*rows: tuple) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=["key", "base_key", "endpoint", "status"], orient="row").cast(
        pl.String
    )


def test_old_rows_count_as_the_provider_default_and_the_flag_would_reuse_them() -> None:
    # before endpoints counted: no endpoint, no base key; the key is the base key
    found = foreign_answers(PLAN, stored(("b1", None, None, "ok")), ENDPOINTS)
    assert found.rows() == [("j", 1, 1, ["provider default"], A)]
    (line,) = foreign_lines(found)
    assert line == (
        "judge 'j': 1 planned calls have stored answers made through another endpoint "
        f"(provider default); they are made again through {A} — set "
        "reuse_across_endpoints = true in [study] to reuse them"
    )


def test_answers_from_another_endpoints_key_are_reported_but_not_reusable() -> None:
    rows = stored(
        ("kB2", "b2", B, "ok"),
        ("kB3", "b3", B, "unparseable"),  # a final answer, even if unparsed
        ("kC3", "b3", "http://c/v1", "ok"),  # one call, answered through two endpoints
        ("b4", "b4", None, "ok"),  # the base key itself: the flag would reuse it
        ("kB6", "b6", B, "ok"),  # judge d is at the provider default
    )
    found = foreign_answers(PLAN, rows, ENDPOINTS)
    assert found.rows() == [
        ("d", 1, 0, [B], "provider default"),
        ("j", 3, 1, [B, "http://c/v1", "provider default"], A),
    ]
    d, j = foreign_lines(found, study="ep")
    assert d.startswith("study 'ep', judge 'd': 1 planned calls")
    assert "made again through provider default" in d and "cannot reuse them" in d
    assert j.endswith("— set reuse_across_endpoints = true in [study] to reuse 1 of them")


def test_errors_own_answers_and_the_same_endpoint_are_not_reported() -> None:
    rows = stored(
        ("kB2", "b2", B, "error"),  # no answer: nothing to reuse
        ("kA1", "b1", A, "ok"),  # the planned key itself is stored
        ("kX1", "b1", B, "ok"),  # … so another endpoint's answer to it does not matter
        ("b3", "b3", A, "ok"),  # the same endpoint (a study with the flag stored it)
    )
    found = foreign_answers(PLAN, rows, ENDPOINTS)
    assert found.is_empty() and foreign_lines(found) == []


def test_a_planned_key_that_errored_is_made_again_and_reported() -> None:
    rows = stored(("kA2", "b2", A, "error"), ("kB2", "b2", B, "ok"))
    assert foreign_answers(PLAN, rows, ENDPOINTS).rows() == [("j", 1, 0, [B], A)]


def old_part(store_dir: Path) -> None:
    """A part as written before endpoints counted: no `endpoint`, no `base_key` column."""
    judge = Judge(name="j", model="openai/m")
    row = {
        "key": key(judge),
        "model": "openai/m",
        "status": "ok",
        "score": 4.0,
        "raw": '{"score": 4}',
        "answers": '["{\\"score\\": 4}"]',
        "error": None,
        "attempts": 1,
        "latency_s": 0.1,
        "prompt_tokens": 10,
        "completion_tokens": 5,
        "cost_usd": None,
        "run_id": "old",
        "created_at": datetime(2026, 1, 1, tzinfo=UTC),
    }
    old_schema = {c: t for c, t in store.SCHEMA.items() if c not in ("endpoint", "base_key")}
    store_dir.mkdir(parents=True, exist_ok=True)
    pl.DataFrame([row], schema=old_schema).write_parquet(store_dir / "part-20260101.parquet")


def test_old_store_parts_read_with_null_endpoint_and_base_key(settings: Settings) -> None:
    old_part(settings.store_dir)
    store.write_part(settings.store_dir, store.rows_to_frame([]))  # a newer, wider part
    rows = store.latest_rows(settings.store_dir, ["key", "base_key", "endpoint", "status"])
    assert rows.height == 1 and rows["endpoint"].is_null().all()
    assert rows["base_key"].is_null().all()


def test_views_bind_over_parts_without_the_new_columns(settings: Settings) -> None:
    """stg_judgments and stg_plan over a store and a plan written before endpoints counted:
    endpoint null (provider default), base_key = key."""
    old_part(settings.store_dir)
    plan = build_plan(study(None), TEXTS, SCALES).drop("base_key")
    warehouse.write_table(settings, plan, "plan", "old")
    warehouse.publish_views(settings)
    j = warehouse.query(settings, "select key, base_key, endpoint from stg_judgments")
    assert j.height == 1 and j["endpoint"].is_null().all()
    assert (j["base_key"] == j["key"]).all()
    p = warehouse.query(settings, "select key, base_key from stg_plan")
    assert p.height == plan.height and (p["base_key"] == p["key"]).all()
