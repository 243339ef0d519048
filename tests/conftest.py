"""Shared fixtures: a temporary data directory, the dataset mirror, quiet Prefect/litellm."""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from judgelab.env import apply_defaults

if worker := os.environ.get("PYTEST_XDIST_WORKER"):
    # `pytest -n 2` (make test): each worker gets a Prefect home of its own (a temporary
    # server's database is not shared) and one llama.cpp thread (two spin-waiting threads
    # per worker on two cores stall each other)
    os.environ["PREFECT_HOME"] = str(Path(tempfile.gettempdir()) / f"judgelab-prefect-{worker}")
    os.environ.setdefault("JUDGELAB_LOCAL_THREADS", "1")
apply_defaults()
# the test double `fake/…` (judgelab/testing/fake_provider.py) is registered in this process
# and in every judgelab command a test starts (they inherit the environment)
os.environ["JUDGELAB_FAKE_PROVIDERS"] = "1"

from judgelab.settings import PROJECT_ROOT, Settings  # noqa: E402

DEFAULT_MIRROR = PROJECT_ROOT.parent / "shared" / "datasets"


def mirror_dir() -> Path:
    return Path(os.environ.get("JUDGELAB_DATA_MIRROR") or DEFAULT_MIRROR).resolve()


def built_once(
    tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]
) -> Path:
    """A folder `build` fills once per test session, whichever xdist worker asks first; the
    other waits on a lock and gets the same folder. A session fixture is otherwise built once
    per worker: the report's warehouse run was built twice a session (~60 s each). The
    folder is read by both workers at once, so its users must not change it."""
    base = tmp_path_factory.getbasetemp()
    base = base.parent if worker else base  # pytest-N/, the parent of each popen-gwK/
    folder = base / name
    with open(base / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not (folder / ".built").exists():  # a build that failed is started again
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            build(folder)
            (folder / ".built").touch()
    return folder


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", data_mirror=mirror_dir())


@pytest.fixture(scope="session")
def vader_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real VADER files, fetched from the mirror once per session."""
    from tasks.sources import extract_tar, fetch

    s = Settings(data_dir=tmp_path_factory.mktemp("vader"), data_mirror=mirror_dir())
    (archive,) = fetch(["vader"], s)
    return extract_tar(archive, s.raw_dir / "vader" / "extracted") / "hutto_ICWSM_2014"


@pytest.fixture(scope="session")
def prefect_api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real Prefect server: the one `.ci/run` started (JUDGELAB_TEST_PREFECT_API_URL), or one
    started here for this session."""
    from judgelab import prefect_home
    from judgelab.testing import prefect_server

    url = os.environ.get("JUDGELAB_TEST_PREFECT_API_URL")
    if url:
        assert prefect_home.answers(url), f"no Prefect server answers at {url}"
        yield url
        return
    with prefect_server.running(tmp_path_factory.mktemp("prefect-server")) as url:
        yield url


@pytest.fixture(scope="session")
def embedded_judge() -> str:
    """The embedded model, after its one-decode self-test in a child process: on a machine
    whose llama.cpp build cannot run, a test using llama.cpp in-process fails with the
    self-test's one line instead of killing its xdist worker with SIGILL."""
    from tasks.judging import selftest

    model = "local/smollm2-135m-instruct"
    try:
        selftest.check([model])
    except selftest.LocalJudgeBroken as exc:
        pytest.fail(str(exc), pytrace=False)
    return model


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under xdist (`make test`: `-n 2 --dist loadfile --no-loadscope-reorder`), files holding
    slow end-to-end tests come first, the most such tests first, each file's tests in their
    order: a file is one unit of work, handed out in this order, so the short files end the run
    on both workers instead of one long test keeping one busy while the other has nothing."""
    if not worker:
        return
    files: dict[str, list[pytest.Item]] = {}
    for item in items:
        files.setdefault(item.nodeid.split("::")[0], []).append(item)
    slow = {f: sum(i.get_closest_marker("slow") is not None for i in t) for f, t in files.items()}
    items[:] = [item for f in sorted(files, key=lambda f: -slow[f]) for item in files[f]]
