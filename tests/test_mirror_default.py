"""Outside `make`, judgelab finds the benchmark mirror beside the project as the Makefile does
(issue 30: `.venv/bin/judgelab run studies/accuracy.toml` spent 73–107 s on DNS timeouts)."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgelab import settings as settings_module
from judgelab.settings import Settings


def test_an_unset_mirror_is_the_folder_beside_the_project_when_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("JUDGELAB_DATA_MIRROR", raising=False)
    monkeypatch.chdir(tmp_path)  # no .env here
    beside = tmp_path / "shared" / "datasets"
    monkeypatch.setattr(settings_module, "SHARED_MIRROR", beside)
    assert Settings().data_mirror is None  # not there: no mirror
    beside.mkdir(parents=True)
    assert Settings().data_mirror == beside
    monkeypatch.setenv("JUDGELAB_DATA_MIRROR", "")  # empty: none, as `make` exports it
    assert Settings().data_mirror is None
    monkeypatch.setenv("JUDGELAB_DATA_MIRROR", str(tmp_path / "elsewhere"))
    assert Settings().data_mirror == tmp_path / "elsewhere"
