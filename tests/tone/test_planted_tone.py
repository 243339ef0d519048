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


WINS = """
select judge, prompt_level, count_if(a.mean_overall > b.mean_overall) as a_wins,
       count_if(a.mean_overall < b.mean_overall) as b_wins
from stg_tone_version_scores a
join stg_tone_version_scores b using (study, judge, prompt_level, rewriter, axis, text_id)
where a.pole = 'high' and b.pole = 'low' and rewriter = 'lexical'
group by all
"""


def wins_from_version_scores(settings: Settings) -> dict[tuple[str, str], tuple[int, int]]:
    """(judge, prompt level) → texts won by the high version, texts won by the low one,
    counted from the version means themselves (two means of integer scores over at most 3
    repeats differ by 0 or by at least 1/6: the cut's tolerance plays no part)."""
    rows = warehouse.query(settings, WINS).rows()
    return {(j, p): (int(a), int(b)) for j, p, a, b in rows}


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
    wins = wins_from_version_scores(planted)
    for variant in ("plain", "style_attention"):
        bonus, noisy = found[("bonus", variant)], found[("noisy", variant)]
        assert 0 < bonus["gap"] <= 0.5 + 0.1  # only high versions above the density get it
        # texts whose high version's mean beats the low one's, over those it loses: the noise
        # (sd 0.3) makes the bonus judge lose a few, so the ratio exists; the bonus makes it
        # far above the noisy judge's, which wins and loses about as often
        for judge, row in (("bonus", bonus), ("noisy", noisy)):
            a_wins, b_wins = wins[(judge, variant)]
            assert (row["n_a_wins"], row["n_b_wins"]) == (a_wins, b_wins) and b_wins > 0
            assert row["win_ratio"] == pytest.approx(a_wins / b_wins)
        assert bonus["win_ratio"] > 4 and 0.5 < noisy["win_ratio"] < 2
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
