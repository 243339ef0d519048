"""One decode of each embedded (llama.cpp) model in a child process, before a run relies on it.

A llama.cpp build that uses CPU instructions this machine cannot run (a `-march=native` wheel
built on another host; AMX on a cloud VM that does not allow it) dies with SIGILL at the
first decode, and SIGILL cannot be caught in Python. Probing in a child turns that into one
line naming the cause and the fix, before anything is written. Stdlib and llama_cpp only in
the child: no litellm or Prefect import, so the probe costs about a second.

JUDGELAB_LOCAL_SELFTEST_FAIL forces a failure, to show what a user would see: `sigill` (or
`1`) kills the child with SIGILL after the model loads, `corrupt` loads a truncated GGUF.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tasks.judging.local_models import LOCAL_MODELS, model_path

FAIL_ENV = "JUDGELAB_LOCAL_SELFTEST_FAIL"
TIMEOUT_S = 120.0  # a model load and one token; generous for a loaded 2-core machine
REBUILD = "run `make setup` again to rebuild it portably"


class LocalJudgeBroken(RuntimeError):
    """The embedded judge cannot run on this machine; the message is the one line to print."""


def local_models(models: list[str]) -> list[str]:
    """The embedded models among litellm model strings (`local/<name>`), once each, in order."""
    names = [m.split("/", 1)[1] for m in models if m.startswith("local/")]
    return [n for n in dict.fromkeys(names) if n in LOCAL_MODELS]


def _no_core_file() -> None:
    """A crashing probe leaves no core file behind (a failed run writes nothing)."""
    import resource

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


_passed: set[str] = set()  # models that decoded in this process's probes: not probed again


class SelfTest:
    """Started at once, awaited later: the probe runs while the caller does other work."""

    def __init__(self, models: list[str]) -> None:
        self.models = [m for m in local_models(models) if m not in _passed]
        self.started = time.monotonic()
        self.proc = None
        if self.models:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "tasks.judging.selftest", *self.models],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env={**os.environ, "PYTHONFAULTHANDLER": ""},  # no dump: we report it
                cwd=Path(__file__).resolve().parents[2],
                preexec_fn=_no_core_file,
            )

    def wait(self) -> None:
        """Return when every model decoded; raise LocalJudgeBroken with one line otherwise."""
        if self.proc is None:
            return
        try:
            out, err = self.proc.communicate(timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.communicate()
            raise LocalJudgeBroken(
                f"the embedded judge ({', '.join(self.models)}) did not answer a one-token "
                f"self-test within {TIMEOUT_S:.0f} s; check the machine's load, then run again"
            ) from None
        code = self.proc.returncode
        if code == 0:
            _passed.update(self.models)
            return
        model = (out.strip().splitlines() or [self.models[0]])[-1]
        if code < 0:  # killed by a signal: SIGILL, or SIGSEGV/SIGBUS in the same CPU path
            name = signal.Signals(-code).name
            raise LocalJudgeBroken(
                f"the embedded judge's llama.cpp build uses CPU instructions this machine "
                f"cannot run ({name} at the first decode of local/{model}); {_rebuild()}"
            )
        last = (err.strip().splitlines() or ["no message"])[-1]
        raise LocalJudgeBroken(
            f"the embedded judge local/{model} failed its self-test ({last}); reinstall it: "
            "rm -r .venv && make setup"
        )

    def stop(self) -> None:
        """Abandon the probe (the caller failed first)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate()


def _rebuild() -> str:
    """The fix: a venv not built by bootstrap gets the portable build from `make setup`; one
    that already has it needs a lower baseline."""
    from judgelab import bootstrap

    flags = bootstrap.installed_flags()
    if flags is None or flags != bootstrap.portable_flags():
        return REBUILD
    if os.environ.get(FAIL_ENV):
        return f"{REBUILD} (this failure was forced by {FAIL_ENV})"
    return (
        "it is already the portable build, so this CPU lacks even that baseline (AVX2/FMA/F16C): "
        f"set {bootstrap.FLAGS_ENV} to lower flags (pyproject.toml, "
        "[tool.judgelab.llama-cpp-build]), then make setup"
    )


def check(models: list[str]) -> None:
    """Probe and wait (for callers with nothing to do meanwhile)."""
    SelfTest(models).wait()


def _probe(name: str) -> None:
    """Load the model as the provider does and decode one token."""
    from llama_cpp import Llama

    forced = os.environ.get(FAIL_ENV, "")
    path = model_path(name)
    with tempfile.TemporaryDirectory() as tmp:
        if forced == "corrupt":  # a real load failure: the GGUF cut off after its header
            bad = Path(tmp) / path.name
            bad.write_bytes(path.read_bytes()[: 1 << 20])
            path = bad
        llm = Llama(model_path=str(path), n_ctx=2048, n_threads=1, verbose=False)
        if forced in ("1", "sigill"):
            os.kill(os.getpid(), signal.SIGILL)
        llm.create_completion(prompt="1", max_tokens=1, temperature=0.0)
        llm.close()


def main(names: list[str]) -> None:
    for name in names:
        print(name, flush=True)  # the last name printed is the one that failed
        _probe(name)


if __name__ == "__main__":
    main(sys.argv[1:])
