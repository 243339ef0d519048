"""The temporary Prefect server a run starts when no PREFECT_API_URL is set (in a session of
its own, so a Ctrl-C reaches judgelab first), a PREFECT_HOME it can write, and its logs flushed
before exit. Only the standard library is imported at the top."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator


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
            try:
                yield ready
            finally:
                flush_api_logs()  # while the server still answers
    finally:
        stop.set()
        booting.join()
        os.environ.pop("PREFECT_API_URL", None)
        _stop(proc)


def writable_prefect_home() -> None:
    """PREFECT_HOME (the temporary server's database) exists or can be created, and takes a
    file; else an OSError naming it and the cause (printed in one line by the CLI). Read from
    the environment, as Prefect does, without importing Prefect: `judgelab run` checks it
    before anything else."""
    from pathlib import Path

    home = Path(os.environ.get("PREFECT_HOME") or "~/.prefect").expanduser()
    # folders made for the probe are removed again: a run that stops in preflight (a broken
    # embedded judge) leaves nothing behind; Prefect makes them when its server starts
    made = [d for d in (home, *home.parents) if not d.exists()]
    try:
        home.mkdir(parents=True, exist_ok=True)
        probe = home / f".judgelab-probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
        for folder in made:  # deepest first
            folder.rmdir()
    except OSError as exc:
        err = OSError(exc.errno, f"cannot use PREFECT_HOME: {exc.strerror}", str(home))
        err.fix = (  # type: ignore[attr-defined]
            "set PREFECT_HOME to a folder you can write (the temporary Prefect server keeps "
            "its database there), or PREFECT_API_URL to a running Prefect server"
        )
        raise err from exc


def flush_api_logs() -> None:
    """Send the logs Prefect still holds for the API (a failed run's last ones): after the
    temporary server stops, its log worker could only print "--- Error logging to API ---
    All connection attempts failed"."""
    handlers = sys.modules.get("prefect.logging.handlers")
    if handlers is not None:
        with contextlib.suppress(Exception):  # the run's outcome is decided; logs are extra
            handlers.APILogWorker.drain_all(timeout=5)
