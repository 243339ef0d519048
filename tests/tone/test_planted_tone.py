"""Simulation: fake judges through the whole tone flow (real UKPConvArg1 texts, the real
lexical rewriter and checks, the offline embedding model). The views recover a planted tone
bonus and call a noisy judge's gap indistinguishable from noise; without the bonus the
recovery fails.

Evaluators (`fake/planted` on the rubric scale, see providers.py):
  bonus  overall 6 + 0.5 when the text has ≥ 2 boosters per 100 words, noise sd 0.3
  noisy  overall 6, noise sd 1.5, no bonus
The rewriter `fake/echo` returns the original unchanged, so its versions must fail the checks
(tone did not move) and never be scored.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import mirror_dir
from test_flow_e2e import judgelab

from judgelab.settings import Settings
from tasks import warehouse
from tasks.tone.similarity import local_backend_missing

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(local_backend_missing() is not None, reason=str(local_backend_missing())),
]

STUDY = """
[study]
name = "planted-tone"
type = "tone"
task = "tone_argument"
benchmark = "ukpconvarg1"
sample_size = 40
seed = 3
repeats = 3
prompt_levels = ["plain", "style_attention"]
scales = ["rubric_argument"]

[rewriter]
name = "echo"
model = "fake/echo"

[[judges]]
name = "bonus"
model = "fake/planted"
concurrency = 32
extra = {{ tone_bonus = {bonus}, booster_min = 2.0, noise = 0.3 }}

[[judges]]
name = "noisy"
model = "fake/planted"
concurrency = 32
extra = {{ noise = 1.5 }}
"""


def run(tmp_path: Path, bonus: float) -> Settings:
    tmp_path.mkdir(parents=True)
    study = tmp_path / "tone.toml"
    study.write_text(STUDY.format(bonus=bonus))
    judgelab(tmp_path / "data", "run", str(study))
    return Settings(data_dir=tmp_path / "data", data_mirror=mirror_dir())


def gaps(settings: Settings) -> dict[tuple[str, str], dict]:
    rows = warehouse.query(settings, "select * from stg_tone_gaps where rewriter = 'lexical'")
    return {(r["judge"], r["prompt_level"]): r for r in rows.iter_rows(named=True)}


def bonus_recovered(settings: Settings) -> bool:
    """Every variant: the gap is positive, its CI excludes 0, and it beats the noise."""
    return all(
        r["gap_lo"] > 0 and r["distinguishable"]
        for (judge, _), r in gaps(settings).items()
        if judge == "bonus"
    )


def test_planted_tone_bonus_is_recovered_and_vanishes_without_it(tmp_path: Path) -> None:
    planted = run(tmp_path / "planted", bonus=0.5)
    found = gaps(planted)
    assert bonus_recovered(planted)
    for variant in ("plain", "style_attention"):
        bonus, noisy = found[("bonus", variant)], found[("noisy", variant)]
        assert 0 < bonus["gap"] <= 0.5 + 0.1  # only high versions above the density get it
        assert bonus["win_ratio"] is None or bonus["win_ratio"] > 2
        assert noisy["distinguishable"] is False  # its gap is within run-to-run noise
        # the family is the study's gap tests: the real bonus survives Holm, the noise does not
        assert bonus["wilcoxon_p_holm"] < 0.05 and bonus["wilcoxon_p_bh"] < 0.05
        assert noisy["wilcoxon_p_holm"] >= 0.05
    sig = warehouse.query(
        planted,
        "select judge, bool_and(sig_holm = 'yes') as all_sig, bool_or(sig_holm = 'yes') "
        "as any_sig from tbl_tone_gaps where rewriter = 'lexical' group by 1 order by 1",
    )
    assert sig.rows() == [("bonus", True, True), ("noisy", False, False)]
    passes = warehouse.query(
        planted, "select rewriter, sum(n_passed) as n from tbl_rewrite_pass_rates group by 1"
    )
    passed = dict(passes.rows())
    assert passed["echo"] == 0  # an unchanged text does not move the tone: never scored
    assert passed["lexical"] > 40  # most of the 80 lexical versions pass
    scored = warehouse.query(planted, "select distinct rewriter from stg_tone_scores order by 1")
    assert scored["rewriter"].to_list() == ["lexical", "none"]  # echo versions never scored

    removed = run(tmp_path / "removed", bonus=0.0)
    assert not bonus_recovered(removed)
