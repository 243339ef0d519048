"""Three axes in one tone study end to end (CLI, Prefect flow, warehouse views, HTML report):
confidence, verbosity and formatting on real UKPConvArg1 arguments, the rule-based rewriter
only (no LLM rewriter: no rewrite calls), and a planted fake evaluator that rewards length and
nothing else (`fake/planted`, `length_bonus`, no noise). Every axis gets its rows in
tbl_tone_gaps and in the report; padding is rewarded and never penalised, bullets (the same
words) move nothing; the unpadded and prose versions are the originals and cost no call.
`judgelab plan` plans the evaluation calls before the run (the rule-based rewrites exist
before any call): exactly the calls the run makes, and after it all of them stored."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import mirror_dir
from test_flow_e2e import judgelab

from judgelab.settings import Settings
from tasks import warehouse
from tasks.judging import store
from tasks.tone.similarity import local_backend_missing

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(local_backend_missing() is not None, reason=str(local_backend_missing())),
]

TEXTS, REPEATS = 8, 2
# the shipped study with its embedded evaluator swapped for a planted fake one: overall =
# round(1 + 5 per 100 words), at most 10, a judge that likes length and only length
SHIPPED = Path("studies/tone_axes.toml").read_text()
STUDY = (
    SHIPPED[: SHIPPED.index("[[judges]]")].replace(
        'prompt_levels = ["plain", "style_attention"]', 'prompt_levels = ["plain"]'
    )
    + """
[[judges]]
name = "lengthy"
model = "fake/planted"
concurrency = 8
extra = { base = 1.0, length_bonus = 5.0 }
"""
)


def planned(out: str) -> tuple[int, int, int]:
    """The evaluator's planned, stored and missing calls in `judgelab plan`'s table."""
    found = re.search(r"lengthy\s*┆\s*(\d+)\s*┆\s*(\d+)\s*┆\s*(\d+)", out)
    assert found, out
    return tuple(int(n) for n in found.groups())


def test_three_axes_reach_the_gap_table_and_the_report(tmp_path: Path) -> None:
    study = tmp_path / "tone-axes.toml"
    study.write_text(STUDY)
    assert f"sample_size = {TEXTS}" in STUDY and f"repeats = {REPEATS}" in STUDY
    data = tmp_path / "data"
    before = judgelab(data, "plan", str(study))
    assert "Tone test: 0 LLM rewrite calls; " in before
    n, stored, missing = planned(before)
    assert n > TEXTS * REPEATS and (stored, missing) == (0, n)  # originals and rewrites
    judgelab(data, "run", str(study))
    settings = Settings(data_dir=data, data_mirror=mirror_dir())
    assert store.read_store(settings.store_dir).height == n  # the plan was the run's
    assert planned(judgelab(data, "plan", str(study))) == (n, n, 0)

    gaps = warehouse.query(
        settings,
        "select axis, contrast, n_texts, gap, n_a_wins, n_b_wins from tbl_tone_gaps "
        "where study = 'tone-axes' and rewriter = 'lexical'",
    )
    by_axis = {r["axis"]: r for r in gaps.iter_rows(named=True)}
    assert set(by_axis) == {"confidence", "verbosity", "formatting"}
    assert by_axis["verbosity"]["contrast"] == "padded vs unpadded"
    assert by_axis["formatting"]["contrast"] == "bullets vs prose"
    verbosity, formatting = by_axis["verbosity"], by_axis["formatting"]
    # a padded version that drifted below cosine 0.9 is not scored; bullets always pass
    assert verbosity["n_texts"] >= TEXTS // 2 and formatting["n_texts"] == TEXTS
    # the plant, recovered: a padded text never scores lower, and some score higher (the
    # bonus of a short text can round away, so no more is asked of 8 texts)
    assert verbosity["gap"] > 0 and verbosity["n_b_wins"] == 0 and verbosity["n_a_wins"] > 0
    # the same words: the length-loving judge sees no difference at all
    assert formatting["gap"] == 0 and formatting["n_a_wins"] == formatting["n_b_wins"] == 0

    rates = warehouse.query(
        settings,
        "select axis, pole, n_versions, n_passed from tbl_rewrite_pass_rates "
        "where study = 'tone-axes' order by axis, pole",
    )
    passed = {(a, p): (n, k) for a, p, n, k in rates.rows()}
    assert passed[("verbosity", "unpadded")] == (TEXTS, TEXTS)
    assert passed[("formatting", "prose")] == passed[("formatting", "bullets")] == (TEXTS, TEXTS)

    # the unpadded and prose versions are the originals: they are scored, but through the
    # originals' calls (same messages, same keys), so the store holds one call per other version
    scored = warehouse.query(
        settings,
        "select pole, count(distinct text_id) as n from stg_tone_scores "
        "where study = 'tone-axes' and status = 'ok' group by pole",
    )
    assert dict(scored.rows())["unpadded"] == dict(scored.rows())["prose"] == TEXTS
    others = sum(n for pole, n in scored.rows() if pole not in ("unpadded", "prose"))
    assert store.read_store(settings.store_dir).height == others * REPEATS

    html = (data / "reports" / "tone-axes.html").read_text()  # the run writes the report
    for contrast in ("padded vs unpadded", "bullets vs prose", "high vs low"):
        assert html.count(contrast) >= 2  # the gaps table and the by-variant table at least
