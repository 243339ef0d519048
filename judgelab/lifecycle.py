"""How a judgelab process ends: its children die with it, and a signal stops it promptly.

Run as `python -m judgelab.lifecycle watch TOKEN`, it is the watchdog (see `guard_tree`). The
temporary Prefect server is judgelab/prefect_home.py.
Only the standard library is imported at the top, so the watchdog starts in a blink.
"""

from __future__ import annotations

import atexit
import contextlib
import contextvars
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any, NoReturn, TypeVar

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
    the token it inherited in its environment, even after it was re-parented to init.
    The flow runs this process owns (`watch_runs`) it then marks Crashed, unless this process
    said at its exit that it ended normally."""
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
    atexit.register(_tell_watchdog, EXITED)  # not run on SIGKILL or os._exit


EXITED = "exited"  # the watchdog's word for "this process ended normally"


def _tell_watchdog(*words: str) -> None:
    """One line to the watchdog (nothing when there is none, or it is gone)."""
    if _watchdog is None or _watchdog.stdin is None:
        return
    with contextlib.suppress(OSError, ValueError):
        _watchdog.stdin.write((" ".join(words) + "\n").encode())
        _watchdog.stdin.flush()


def watch_runs(owner_tag: str, api_url: str) -> None:
    """If this process dies without a normal exit (kill -9, a crash, a stop that could not
    record its runs), the watchdog marks the unfinished flow runs tagged `owner_tag` on the
    Prefect server at `api_url` Crashed, with their subflow and task runs (owners.crash_owned),
    within seconds instead of at the next run of the study."""
    _tell_watchdog("runs", api_url, owner_tag)


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
    runs: list[tuple[str, str]] = []  # (api url, owner tag) of the flow runs to mark
    exited = False
    while line := sys.stdin.buffer.readline():  # b"" at EOF: our parent is gone
        words = line.decode().split()
        if words[:1] == ["runs"] and len(words) == 3:
            runs.append((words[1], words[2]))
        exited = exited or words == [EXITED]
    end_tree(token)  # first: no judge request goes out after this
    if runs and not exited:
        _crash_runs(runs)


def _crash_runs(runs: list[tuple[str, str]]) -> None:
    """Mark the unfinished flow runs of a process that died Crashed: this process becomes
    `python -m judgelab.owners crash URL TAG …` (it imports Prefect: seconds of CPU, paid
    once, after a death). A server that no longer answers (the temporary one died with the
    tree) is skipped: its runs are marked by the next run of their studies, as always."""
    from judgelab.prefect_home import answers

    live = [word for url, tag in runs if answers(url) for word in (url, tag)]
    if live:
        command = [sys.executable, "-m", "judgelab.owners", "crash", *live]
        with contextlib.suppress(OSError):
            os.execv(sys.executable, command)


# --- judge requests: a stop closes the gate ------------------------------------------------

GRACE_S = 2.0  # after a signal, calls in flight have this long to finish and be journaled


class GateClosed(Exception):
    """The gate closed while a call was between requests: the call is abandoned, not stored."""


class Gate:
    """This process's judge calls. `until_stopped` closes it on SIGTERM / SIGINT, and from then
    on no call and no request starts (the engine asks before each). It counts the calls in
    flight (a request sent, the call not yet journaled), those abandoned because it closed,
    those that finished after it closed, and requests sent, for the stop line.

    Engine processes of a shard (`processes > 1`) get a gate of their own through `share` /
    `join_gate`, backed by shared memory: closing the parent's gate closes theirs at once,
    and their calls count in the parent's figures."""

    IN_FLIGHT, ABANDONED, FINISHED, SENT = range(4)

    def __init__(self, closed: Any = None, counts: Any = None) -> None:
        self._closed = closed if closed is not None else threading.Event()
        if counts is None:
            self._counts, self._lock = [0, 0, 0, 0], threading.Lock()
        else:  # a multiprocessing Array: its memory, read without the lock by figures()
            self._counts, self._lock = counts.get_obj(), counts.get_lock()
        self._flag = False  # set by a signal handler (never takes a lock: see join_gate)
        self._shares: list[Gate] = []
        self.sent_at_close = 0

    def closed(self) -> bool:
        return self._flag or self._closed.is_set()

    def close(self) -> None:
        self._closed.set()
        for share in list(self._shares):
            share.close()
        self.sent_at_close = self.figures()[self.SENT]

    def _add(self, field: int, n: int) -> None:
        with self._lock:
            self._counts[field] += n

    def send(self, first: bool) -> bool:
        """A request may go out (counted) unless the gate is closed; a call's `first` request
        puts the call in flight."""
        if self.closed():
            return False
        self._add(self.SENT, 1)
        if first:
            self._add(self.IN_FLIGHT, 1)
        return True

    def end_call(self, abandoned: bool) -> None:
        """A call in flight was recorded, or `abandoned` (the gate closed before its end)."""
        self._add(self.IN_FLIGHT, -1)
        if abandoned:
            self._add(self.ABANDONED, 1)
        elif self.closed():
            self._add(self.FINISHED, 1)

    def figures(self) -> tuple[int, int, int, int]:
        """(in flight, abandoned, finished after the close, sent), this process's and its
        shares' (engine processes).
        Read without the lock: an engine process killed while holding it cannot block us."""
        own = tuple(self._counts[:])
        parts = [own, *(share.figures() for share in list(self._shares))]
        return tuple(sum(p[i] for p in parts) for i in range(4))  # type: ignore[return-value]

    def settle(self, deadline: float) -> None:
        """Wait until no call is in flight or time.monotonic() passes `deadline`."""
        while self.figures()[self.IN_FLIGHT] > 0 and time.monotonic() < deadline:
            time.sleep(0.05)

    @contextlib.contextmanager
    def share(self, ctx: Any) -> Iterator[tuple[Any, Any]]:
        """A gate for engine processes started from `ctx` (a multiprocessing context): yields
        the initargs of `join_gate` (pass `initializer=join_gate`)."""
        closed, counts = ctx.Event(), ctx.Array("q", 4)
        child = Gate(closed, counts)
        self._shares.append(child)
        if self.closed():
            closed.set()
        try:
            yield closed, counts
        finally:
            self._shares.remove(child)


_gate = Gate()


def gate() -> Gate:
    """This process's gate (an engine process's: the one its parent shared)."""
    return _gate


def join_gate(closed: Any, counts: Any) -> None:
    """Initializer of an engine process: use the parent's shared gate, and let a signal close
    it instead of raising KeyboardInterrupt into the event loop (a terminal's Ctrl-C reaches
    every process of the group). The handler only sets a flag: taking the shared lock inside
    a handler could deadlock on the same lock held by the interrupted code. A second signal
    (the watchdog's SIGTERM once the parent is gone) exits at once."""
    global _gate
    _gate = Gate(closed, counts)

    def handler(signum: int, frame: object) -> None:
        if _gate.closed():
            os._exit(128 + signum)
        _gate._flag = True

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, handler)


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
    """One line on stderr, written directly: safe inside a signal handler. A stderr nobody
    reads any more loses the line and nothing else: a `serve` flow-run process writes into a
    pipe of `serve`, and after a kill -9 of `serve` the EPIPE used to abort the stop it
    reported (runs not recorded Cancelled, calls going on until the watchdog's SIGKILL)."""
    with contextlib.suppress(OSError):
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


def stop_line(stopped: Gate) -> str:
    """What a stop left behind: calls abandoned in flight, requests sent after the close (and
    in all: a provider's count can be held against it)."""
    in_flight, abandoned, finished, sent = stopped.figures()
    kept = f"; {finished} calls finished in the grace period and are stored" if finished else ""
    new = sent - stopped.sent_at_close
    return (
        f"stopped: {in_flight + abandoned} calls in flight abandoned, {new} new sent "
        f"({sent} requests in all{kept})"
    )


def until_stopped(work: Callable[[], T], stop: Callable[[str], None]) -> T:
    """`work()` in a worker thread (with this thread's context: Prefect's run, tags, settings)
    while this thread only waits for it. A signal then always interrupts that wait: raised
    inside the judge stage's event loop it could land in one asyncio task and be swallowed
    there, which is how a run used to ignore SIGTERM. On SIGTERM (Prefect raises
    TerminationSignal) or SIGINT: say so, `stop(signal name)` (record the runs Cancelled),
    and exit 128 + the signal. The gate closes first, so no judge request starts after the
    signal; calls in flight get until GRACE_S after it to finish (they are journaled), the
    rest are dropped and the next run makes them. One line then says how many."""
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
        _gate.close()  # first: from here on no judge call and no request starts
        signalled = time.monotonic()
        signum = exc.signal if isinstance(exc, TerminationSignal) else signal.SIGINT
        signum = getattr(exc, "signum", signum)
        _deadline(128 + signum)
        say(
            f"{signal.Signals(signum).name}: stopping: no new calls; waiting for Prefect to "
            f"record the run Cancelled (calls in flight get {GRACE_S:g} s to finish; the next "
            "run makes those that do not)"
        )
        try:
            stop(signal.Signals(signum).name)
            _tell_watchdog(EXITED)  # the runs are recorded: nothing for it to mark
        except Exception as err:  # the run stays Running; the watchdog marks it Crashed
            say(f"could not record the run Cancelled: {err}")
        _gate.settle(signalled + GRACE_S)
        say(stop_line(_gate))
        exit_now(128 + signum)
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome["value"]  # type: ignore[return-value]


def serve(
    deployments: list, limit: int | None, registered: Callable[[uuid.UUID], None] | None = None
) -> int:
    """Prefect's `serve`, stopping the same way on SIGINT as on SIGTERM: no new runs, the runs
    in flight cancelled (Prefect's runner sends them SIGTERM; each records itself Cancelled
    and exits, see `until_stopped`), then exit 128 + the signal, within DEADLINE_S.
    `registered(deployment id)` is called once each deployment exists on the server."""
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
        deployment_id = runner.add_deployment(deployment)
        if registered:
            registered(deployment_id)
    signal.signal(signal.SIGINT, runner.handle_sigterm)  # Runner.start takes SIGTERM itself
    say(f"serving {len(deployments)} deployment(s); Ctrl-C or SIGTERM stops")
    asyncio.run(runner.start())
    return 128 + runner.signum if runner.signum else 0


if __name__ == "__main__" and sys.argv[1:2] == ["watch"]:
    _watch(sys.argv[2])
