"""How a judgelab process ends: its children die with it, and a signal stops it promptly.

Run as `python -m judgelab.lifecycle watch TOKEN`, it is the watchdog (see `guard_tree`).
Only the standard library is imported at the top, so the watchdog starts in a blink.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from typing import NoReturn, TypeVar

T = TypeVar("T")
TREE_VAR = "JUDGELAB_PROCESS_TREE"  # every process a judgelab command starts inherits it
DEADLINE_S = 9.0  # a stop never takes longer: then the process exits as it is
_watchdog: subprocess.Popen | None = None  # its stdin is the pipe whose end it waits for


# --- children die with their parent --------------------------------------------------------


def guard_tree() -> None:
    """Tag this process's environment with a fresh token and start a watchdog that ends every
    process carrying it once this process is gone, however it went (SIGKILL included).

    Why a watchdog and not PR_SET_PDEATHSIG: that signal reaches only direct children, fires
    when the *thread* that started them exits, and Prefect and multiprocessing start some of
    ours with Popen calls we cannot hook (the flow-run processes of `serve`, ProcessPool and
    Dask workers). The watchdog holds the read end of a pipe only this process writes to; the
    kernel closes it when this process dies, and the watchdog then finds every descendant by
    the token it inherited in its environment, even after it was re-parented to init."""
    global _watchdog
    if _watchdog is not None:
        return
    os.environ[TREE_VAR] = uuid.uuid4().hex
    _watchdog = subprocess.Popen(
        [sys.executable, "-m", "judgelab.lifecycle", "watch", os.environ[TREE_VAR]],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        start_new_session=True,  # a terminal's Ctrl-C is for us, not for the watchdog
    )


def tree(token: str) -> list[int]:
    """Live processes (not zombies) whose environment carries `token`; Linux /proc only."""
    entry = f"\0{TREE_VAR}={token}\0".encode()
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc") if os.path.isdir("/proc") else []):
        try:
            with open(f"/proc/{pid}/environ", "rb") as fh:
                if entry in b"\0" + fh.read():  # a zombie's environ reads empty
                    found.append(int(pid))
        except OSError:  # gone meanwhile, or another user's
            continue
    return found


def end_tree(token: str, grace: float = 3.0) -> None:
    """SIGTERM every process of the tree but this one, SIGKILL what is left after `grace` s."""
    pids = [p for p in tree(token) if p != os.getpid()]
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
        deadline = time.monotonic() + grace
        while pids and time.monotonic() < deadline:
            time.sleep(0.1)
            pids = [p for p in pids if p in tree(token)]


def _watch(token: str) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.stdin.buffer.read()  # returns at EOF: our parent is gone
    end_tree(token)


# --- the temporary Prefect server ----------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def answers(url: str, path: str = "/health") -> bool:
    """GET url+path gives 200. urllib, not httpx: an httpx call builds an SSL context each
    time (0.6 s over a server's start)."""
    import urllib.request

    try:
        with urllib.request.urlopen(f"{url}{path}", timeout=2) as response:
            return response.status == 200
    except OSError:  # URLError and timeouts included
        return False


def _start_server(port: int) -> subprocess.Popen:
    """Prefect's own temporary server (the command and environment of Prefect 3.9.1's
    SubprocessASGIServer), but in a session of its own: a Ctrl-C at the terminal reaches
    judgelab, which still needs the server to record the run Cancelled."""
    import prefect
    from prefect.settings import get_current_settings

    cmd = [sys.executable, "-m", "uvicorn", "--app-dir", str(prefect.__module_path__.parent)]
    cmd += ["--factory", "prefect.server.api.server:create_app", "--host", "127.0.0.1"]
    cmd += ["--port", str(port), "--log-level", "error", "--lifespan", "on"]
    env = {
        **os.environ,
        "PREFECT_UI_ENABLED": "0",
        "PREFECT__SERVER_EPHEMERAL": "1",
        "PREFECT__SERVER_FINAL": "1",
        **get_current_settings().to_environment_variables(exclude_unset=True),
    }
    return subprocess.Popen(cmd, env=env, start_new_session=True)


def _stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@contextlib.contextmanager
def prefect_api() -> Iterator[Callable[[], str | None]]:
    """The Prefect server this command talks to: PREFECT_API_URL if set, else a temporary one
    started here and stopped on the way out (the watchdog stops it if we die first).

    The temporary server starts on entry and boots while the caller checks the study files and
    imports (about 5 s of a rerun's start, measured); the yielded `ready()` waits until it
    answers, points Prefect at it, puts its URL into the environment too (so Dask workers and
    flow-run processes use the same one) and returns it. `ready()` returns None when Prefect
    may not start one (ephemeral mode off): Prefect then says so."""
    from prefect.settings import (
        PREFECT_API_URL,
        PREFECT_SERVER_EPHEMERAL_ENABLED,
        PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS,
        temporary_settings,
    )

    if PREFECT_API_URL.value() or not PREFECT_SERVER_EPHEMERAL_ENABLED.value():
        yield PREFECT_API_URL.value
        return
    deadline = time.monotonic() + PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS.value()
    port = free_port()
    proc, url = _start_server(port), f"http://127.0.0.1:{port}/api"
    failed: list[BaseException] = []
    stop = threading.Event()

    def boot() -> None:
        """Wait for the server in the background, then make its first API request, which
        is slow (0.8 s, measured) and would otherwise be the flow's."""
        nonlocal proc, url
        try:
            while not answers(url):
                if stop.is_set():
                    return
                if proc.poll() is not None:  # the port was taken (exit 3): another one
                    if time.monotonic() > deadline or proc.returncode != 3:
                        code = proc.returncode
                        raise RuntimeError(
                            f"the temporary Prefect server did not start (exit {code})"
                        )
                    port = free_port()
                    proc, url = _start_server(port), f"http://127.0.0.1:{port}/api"
                elif time.monotonic() > deadline:
                    raise RuntimeError(
                        f"the temporary Prefect server at {url} did not answer in time"
                    )
                time.sleep(0.2)
            answers(url, "/admin/version")
        except BaseException as exc:  # raised in the caller's thread by ready()
            failed.append(exc)

    booting = threading.Thread(target=boot, name="judgelab-prefect-boot", daemon=True)
    booting.start()
    pointed = contextlib.ExitStack()

    def ready() -> str:
        booting.join()
        if failed:
            raise failed[0]
        os.environ["PREFECT_API_URL"] = url
        pointed.enter_context(temporary_settings(updates={PREFECT_API_URL: url}))
        return url

    try:
        with pointed:
            yield ready
    finally:
        stop.set()
        booting.join()
        os.environ.pop("PREFECT_API_URL", None)
        _stop(proc)


# --- stopping on SIGTERM / SIGINT ----------------------------------------------------------


class Stopped(KeyboardInterrupt):
    """SIGTERM or SIGINT outside a flow run: nothing to cancel, exit 128 + the signal."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def raise_on_signals() -> None:
    """SIGTERM and SIGINT raise `Stopped` in the main thread (Prefect's flow engine puts its
    own SIGTERM handler in place while a flow runs, and this one back afterwards)."""

    def handler(signum: int, frame: object) -> None:
        raise Stopped(signum)

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, handler)


def say(line: str) -> None:
    """One line on stderr, written directly: safe inside a signal handler."""
    os.write(2, f"judgelab: {line}\n".encode())


def exit_now(code: int) -> NoReturn:
    """Leave at once, without waiting for threads; the watchdog ends the children. No flush of
    sys.stdout/stderr: a worker thread blocked writing to a full pipe holds their lock (our
    own lines went out through `say`)."""
    os._exit(code)


def _deadline(code: int) -> None:
    timer = threading.Timer(DEADLINE_S, exit_now, [code])
    timer.daemon = True
    timer.start()


def until_stopped(work: Callable[[], T], stop: Callable[[str], None]) -> T:
    """`work()` in a worker thread (with this thread's context: Prefect's run, tags, settings)
    while this thread only waits for it. A signal then always interrupts that wait: raised
    inside the judge stage's event loop it could land in one asyncio task and be swallowed
    there, which is how a run used to ignore SIGTERM. On SIGTERM (Prefect raises
    TerminationSignal) or SIGINT: say so, `stop(signal name)` (record the runs Cancelled),
    and exit 128 + the signal at once; calls in flight are dropped, and the next run makes
    them (every finished call is already in the journal)."""
    from prefect.exceptions import TerminationSignal

    outcome: dict[str, object] = {}
    done = threading.Event()
    context = contextvars.copy_context()

    def target() -> None:
        try:
            outcome["value"] = context.run(work)
        except BaseException as exc:  # handed to the waiting thread
            outcome["error"] = exc
        finally:
            done.set()

    threading.Thread(target=target, name="judgelab-work", daemon=True).start()
    try:
        while not done.wait(1.0):
            pass
    except (TerminationSignal, KeyboardInterrupt) as exc:
        signum = exc.signal if isinstance(exc, TerminationSignal) else signal.SIGINT
        signum = getattr(exc, "signum", signum)
        _deadline(128 + signum)
        say(
            f"{signal.Signals(signum).name}: stopping: no new calls; waiting for Prefect to "
            "record the run Cancelled (calls in flight are dropped: the next run makes them)"
        )
        try:
            stop(signal.Signals(signum).name)
        except Exception as err:  # the run stays Running; the next run marks it Crashed
            say(f"could not record the run Cancelled: {err}")
        exit_now(128 + signum)
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["value"]  # type: ignore[return-value]


def serve(deployments: list, limit: int | None) -> int:
    """Prefect's `serve`, stopping the same way on SIGINT as on SIGTERM: no new runs, the runs
    in flight cancelled (Prefect's runner sends them SIGTERM; each records itself Cancelled
    and exits, see `until_stopped`), then exit 128 + the signal, within DEADLINE_S."""
    import asyncio

    from prefect.runner import Runner

    class StoppingRunner(Runner):
        signum = 0

        def handle_sigterm(self, signum: int = signal.SIGTERM, *args: object) -> None:
            if self.signum:
                return
            self.signum = signum
            _deadline(128 + signum)
            say(
                f"{signal.Signals(signum).name}: stopping: no new runs; waiting for the runs "
                "in flight to record themselves Cancelled and exit"
            )
            if not self.started:
                raise SystemExit(128 + signum)
            super().handle_sigterm()

    runner = StoppingRunner(limit=limit)
    for deployment in deployments:
        runner.add_deployment(deployment)
    signal.signal(signal.SIGINT, runner.handle_sigterm)  # Runner.start takes SIGTERM itself
    say(f"serving {len(deployments)} deployment(s); Ctrl-C or SIGTERM stops")
    asyncio.run(runner.start())
    return 128 + runner.signum if runner.signum else 0


if __name__ == "__main__" and sys.argv[1:2] == ["watch"]:
    _watch(sys.argv[2])
