"""The README's commands and the docs' operations advice.

Every command the README gives (each line of its ```sh blocks, and each inline `make …` or
`.venv/bin/…`) is run here as written, in a folder holding the study file and a `.venv` link to
this venv, or is listed with the named test that covers it; a command added to the README
without either fails. A `prefect server start` to copy (docs/how-to/prefect-ui.md, where the
README's text moved) comes with usage analytics off (judgelab's own temporary servers have it
off; a server started by hand does not). Every page of docs/ and the README are read."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_flow_e2e import CI_SERVER

from judgelab.settings import PROJECT_ROOT

README = (PROJECT_ROOT / "README.md").read_text()
SH_BLOCK = re.compile(r"^```sh\n(.*?)^```$", re.S | re.M)
ANY_BLOCK = re.compile(r"^```\w*\n.*?^```$", re.S | re.M)
COMMAND = re.compile(r"^(make |\.venv/bin/)")


def readme_commands() -> list[str]:
    """Each command of the README once, in order: ```sh lines without their comments, then
    inline code that starts with `make ` or `.venv/bin/` (names such as `judgelab check` in
    link texts are not commands)."""
    lines = [ln.split(" #")[0].strip() for b in SH_BLOCK.findall(README) for ln in b.splitlines()]
    prose = ANY_BLOCK.sub("", README).replace("\n", " ")
    inline = [s for s in re.findall(r"`([^`]+)`", prose) if COMMAND.match(s)]
    return list(dict.fromkeys(c for c in lines + inline if c))


# The README's own-data commands, run by the tests below in this order.
OWN_DATA_COMMANDS = [
    ".venv/bin/judgelab plan my-valence.toml",
    ".venv/bin/judgelab run my-valence.toml",
    ".venv/bin/judgelab show tbl_rating_performance",
    ".venv/bin/judgelab tables",
    ".venv/bin/judgelab report my-valence.toml",
]
# Commands a test elsewhere covers: the test, and how.
COVERED_ELSEWHERE = {
    "make run": (
        "tests/test_flow_e2e.py::test_default_suite_runs_every_study_every_view_and_never_"
        "prints_texts",
        "runs `judgelab run studies/all.toml` (what make run runs after setup, "
        "test_make_targets_run_what_the_readme_says) at --sample-size 3, twice",
    ),
    "make test": (
        "tests/test_readme_ops.py::test_make_targets_run_what_the_readme_says",
        "make test runs the whole suite; .ci/run, the CI entry point, ends with it",
    ),
    ".venv/bin/mkdocs serve": (
        "tests/test_docs.py::test_the_site_builds_strict",
        "serve builds the same site and serves it; the build is tested with --strict",
    ),
    ".venv/bin/mkdocs build --strict": ("tests/test_docs.py::test_the_site_builds_strict", ""),
    ".venv/bin/judgelab plan studies/paper_scale.toml": (
        "tests/test_costs.py::test_paper_scale_study_plans_without_keys_and_batch_is_at_most_"
        "55_percent",
        "runs `judgelab plan studies/paper_scale.toml` without keys and reads its three figures",
    ),
}


def test_every_readme_command_is_run_here_or_covered_by_a_named_test() -> None:
    commands = readme_commands()
    assert "make run" in commands and ".venv/bin/judgelab tables" in commands  # the reader works
    assert sorted(commands) == sorted([*OWN_DATA_COMMANDS, *COVERED_ELSEWHERE])
    for node, _ in COVERED_ELSEWHERE.values():
        path, name = node.split("::")
        assert f"\ndef {name}(" in (PROJECT_ROOT / path).read_text(), node


def test_make_targets_run_what_the_readme_says() -> None:
    """`make -n` prints a target's commands without running them."""

    def dry_run(target: str) -> list[str]:
        # run from `make test` (CI), make would print "Entering/Leaving directory" lines
        env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
        done = subprocess.run(
            ["make", "-n", "--no-print-directory", target],
            cwd=PROJECT_ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.splitlines()

    assert dry_run("run")[-1] == ".venv/bin/judgelab run studies/all.toml"
    assert dry_run("test")[-1] == (
        ".venv/bin/python -m pytest -n 2 --dist loadfile --no-loadscope-reorder"
    )
    ci = [ln for ln in (PROJECT_ROOT / ".ci/run").read_text().splitlines() if ln.strip()]
    assert ci[-1] == "make test"


# --- the own-data commands, as written -----------------------------------------------------


def readme_study(folder: Path, n_items: int) -> Path:
    """The README's study file and a rating file of `n_items` items × 3 raters in `folder`,
    with `.venv` linking to this venv, as in a checkout; returns the folder."""
    (study,) = re.findall(r"^```toml\n(.*?)^```$", README, re.S | re.M)
    folder.mkdir()
    (folder / "my-valence.toml").write_text(study)
    rows = [
        f"{i},plain sentence {i},r{r},{1 + (i + r) % 5}" for i in range(n_items) for r in (1, 2, 3)
    ]
    (folder / "my_ratings.csv").write_text(
        "id,sentence,annotator,valence\n" + "\n".join(rows) + "\n"
    )
    (folder / ".venv").symlink_to(Path(sys.prefix))
    return folder


def shell(command: str, folder: Path, data: Path) -> subprocess.CompletedProcess:
    """`command` as typed in `folder`. PYTHONPATH puts this checkout first (the venv may be
    another checkout's); no JUDGELAB_DATA_MIRROR, so the mirror beside the project is found
    as a user's would be; the outputs go to `data`."""
    env = {k: v for k, v in os.environ.items() if k != "JUDGELAB_DATA_MIRROR"}
    env |= CI_SERVER | {"PYTHONPATH": str(PROJECT_ROOT), "JUDGELAB_DATA_DIR": str(data)}
    done = subprocess.run(
        ["bash", "-c", command], cwd=folder, env=env, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, f"{command}:\n{done.stdout}\n{done.stderr}"
    return done


def test_readme_plan_runs_as_written(tmp_path: Path) -> None:
    folder = readme_study(tmp_path / "mine", n_items=4)
    out = shell(OWN_DATA_COMMANDS[0], folder, tmp_path / "data").stdout
    row = next(ln for ln in out.splitlines() if " smollm2-135m " in ln)
    assert re.findall(r"\b\d+\b", row)[:3] == ["48", "0", "48"]  # 4 items × 3 levels × 4 scales


@pytest.mark.slow
def test_readme_own_data_commands_run_as_written(tmp_path: Path) -> None:
    """plan, run (the embedded judge, 2 items: 24 calls), show, tables and report."""
    folder, data = readme_study(tmp_path / "mine", n_items=2), tmp_path / "data"
    plan, run, show, tables, report = (shell(c, folder, data).stdout for c in OWN_DATA_COMMANDS)
    assert "smollm2-135m ┆ 24 " in plan
    assert "my-valence · judge smollm2-135m: 24 planned, 0 already stored, 24 judge calls made" in (
        run
    )
    rows = [ln for ln in show.splitlines() if "my-valence ┆ judge ┆ smollm2-135m" in ln]
    assert len(rows) == 12  # one per design: 3 prompt levels × 4 scales
    assert "tbl_rating_performance " in tables
    html = data / "reports" / "my-valence.html"
    assert f"report: {html.as_uri()}" in report
    assert html.read_text().lstrip().lower().startswith("<!doctype html>")


# --- operations advice in the docs ---------------------------------------------------------


def test_every_prefect_server_start_in_the_docs_turns_analytics_off() -> None:
    pages = [PROJECT_ROOT / "README.md", *sorted((PROJECT_ROOT / "docs").rglob("*.md"))]
    text = "\n".join(p.read_text() for p in pages)
    blocks = re.findall(r"```sh\n(.*?)```", text, flags=re.S)
    starts = [b for b in blocks if "prefect server start" in b]
    assert starts, "the docs show how to start a Prefect server"
    assert "prefect server start" in (PROJECT_ROOT / "docs/how-to/prefect-ui.md").read_text()
    for block in starts:
        assert "export PREFECT_SERVER_ANALYTICS_ENABLED=false" in block, block
    inline = re.findall(r"`([^`]*prefect server start[^`]*)`", text.replace("\n", " "))
    for command in inline:
        if "--" in command:  # a command to run, not the name of one
            assert "PREFECT_SERVER_ANALYTICS_ENABLED=false" in command, command
