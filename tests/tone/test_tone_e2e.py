"""The tone stress test end to end on the embedded model (rewriter and evaluator), tiny: every
tone view prints, the pass rate is reported, and a rerun makes no calls."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_flow_e2e import judgelab

from judgelab.cli import main
from judgelab.settings import Settings
from tasks import warehouse
from tasks.tone.similarity import local_backend_missing

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(local_backend_missing() is not None, reason=str(local_backend_missing())),
]

STUDY = Path("studies/tone.toml").read_text()
TONE_VIEWS = ("tbl_tone_", "tbl_rewrite_")


def test_embedded_tone_study_prints_every_view_and_reruns_without_calls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
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
    monkeypatch.setenv("JUDGELAB_DATA_DIR", str(data))
    shown = [v.stem for v in warehouse.view_files() if v.stem.startswith(TONE_VIEWS)]
    for view in shown:  # every tone view prints (in this process: a command each cost ~1 s)
        assert main(["show", view, "--format", "md"]) == 0, capsys.readouterr().err
        assert capsys.readouterr().out.startswith("|"), view
    assert len(shown) >= 7
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
