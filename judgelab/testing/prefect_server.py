"""A real `prefect server start` on 127.0.0.1 FOR TESTS AND CI: start it, wait until
`/api/health` answers, stop it afterwards.

Run: python -m judgelab.testing.prefect_server --home DIR [--port N]
It prints `api http://127.0.0.1:PORT/api` once healthy and serves until terminated.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from judgelab.prefect_home import answers, free_port

# fast schedules for tests: the scheduler service looks for due runs every 2 s
SERVER_ENV = {
    "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    "PREFECT_UI_ENABLED": "false",
    "PREFECT_LOGGING_LEVEL": "WARNING",
    "PREFECT_SERVER_SERVICES_SCHEDULER_LOOP_SECONDS": "2",
}


def start(home: Path, port: int) -> subprocess.Popen:
    """Start the server in its own process group (SQLite database under `home`)."""
    home.mkdir(parents=True, exist_ok=True)
    prefect = Path(sys.executable).with_name("prefect")
    return subprocess.Popen(
        [str(prefect), "server", "start", "--host", "127.0.0.1", "--port", str(port)],
        env={**os.environ, **SERVER_ENV, "PREFECT_HOME": str(home)},
        stdout=open(home / "server.log", "ab"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def wait_healthy(proc: subprocess.Popen, api_url: str, timeout: float = 180.0) -> None:
    deadline = time.monotonic() + timeout
    while not answers(api_url):
        if proc.poll() is not None:
            raise RuntimeError(f"prefect server exited with {proc.returncode}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"prefect server not healthy after {timeout:.0f} s")
        time.sleep(0.5)


def stop(proc: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, 15)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        proc.wait()


@contextlib.contextmanager
def running(home: Path, port: int | None = None) -> Iterator[str]:
    """A healthy server for the duration; yields its API URL (`…/api`)."""
    port = port or free_port()
    proc = start(home, port)
    try:
        api_url = f"http://127.0.0.1:{port}/api"
        wait_healthy(proc, api_url)
        yield api_url
    finally:
        stop(proc)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--home", required=True, help="PREFECT_HOME of the server (its database)")
    p.add_argument("--port", type=int, default=0, help="0: any free port")
    args = p.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # so `running` stops the server
    with running(Path(args.home), args.port or None) as api_url:
        print(f"api {api_url}", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            while True:
                time.sleep(3600)


if __name__ == "__main__":
    main()
