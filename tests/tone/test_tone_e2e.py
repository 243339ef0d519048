"""The tone stress test end to end on the embedded model (rewriter and evaluator), tiny: every
tone view prints, the pass rate is reported, and a rerun makes no calls."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_flow_e2e import judgelab

from judgelab.settings import Settings
from tasks import warehouse
from tasks.tone.similarity import local_backend_missing

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(local_backend_missing() is not None, reason=str(local_backend_missing())),
]

STUDY = Path("studies/tone.toml").read_text()


def test_embedded_tone_study_prints_every_view_and_reruns_without_calls(tmp_path: Path) -> None:
    # the shipped study, cut to one evaluator prompt and one repeat to fit CI
    small = STUDY.replace('prompt_levels = ["plain", "style_attention", "fact_first"]', "")
    small = re.sub(r"repeats = \d+", 'repeats = 1\nprompt_levels = ["plain"]', small)
    study = tmp_path / "tone.toml"
    study.write_text(small)
    data = tmp_path / "data"
    out = judgelab(data, "run", str(study), "--sample-size", "2")
    assert "tone · judge smollm2-rewriter: 4 planned" in out  # 2 texts × 2 poles
    assert "tbl_rewrite_pass_rates" in out and "Only rewrites that pass" in out
    settings = Settings(data_dir=data)
    for view in warehouse.view_files():
        if view.stem.startswith(("tbl_tone_", "tbl_rewrite_")):
            judgelab(data, "show", view.stem, "--format", "md")  # every tone view prints
    rates = warehouse.query(
        settings,
        "select rewriter, sum(n_versions) as n from tbl_rewrite_pass_rates group by 1 order by 1",
    )
    assert rates.rows() == [("lexical", 4), ("smollm2-rewriter", 4)]
    scored = warehouse.query(
        settings, "select count(*) as n from stg_tone_scores where status = 'ok'"
    )
    assert scored["n"][0] >= 2  # at least the two originals were scored
    again = judgelab(data, "run", str(study), "--sample-size", "2")
    assert again.count("0 judge calls made") == 2  # rewriter and evaluator: nothing missing
